/** The public face: at most 40 values (test/unit/architecture/face.test.ts), types free; tests import the rest from its module. */
export type { Benchmark, Doc, DocId, Judged, Qrels, Query, QueryId, QueryMeta, Ranking, Retriever, Run, RunInfo, RunCost, Tokenizer } from "./types";
export { NO_AREA, sourceOf } from "./types";

// The data: a benchmark, its statistics (Tables 1 and 6), run files.
export { loadBenchmark, type LoadedBenchmark, type LoadOptions } from "./data/source";
export { datasetStats, areaStats, type DatasetStats, type AreaStats } from "./data/stats";
export { readRun } from "./data/runs";

// Text: the tokenizers, and one text taken through the paper's.
export { TOKENIZERS, type TokenizerContext } from "./text/registry";
export { createTokenizer } from "./data/spacy-tables";
export { words } from "./text/normalize";
export { explainStemming, type StemmingStep } from "./text/tokenizers";

// Retrieval: build one by name or compose retrievers at hand, plug in your own, fuse; BM25 taken apart and tuned.
export { compose, createRetriever, registerRetriever, retrieverNames, type RetrieverOptions, type RetrieverFactory } from "./retrievers";
export type { Fusion } from "./fusion/retriever";
export { rrf } from "./fusion/rrf";
export { indexCorpus, type IndexedCorpus } from "./sparse/bm25-retriever";
export { explainBm25, explainPrf, type Bm25Explanation, type PrfExplanation, type TermContribution } from "./sparse/explain";
export { tuneBm25 } from "./experiments/tuning";
export type { SweepResult } from "./eval/sweep-result";
export type { CvResult } from "./eval/cross-validation";
export { rewriteQueries } from "./retrievers";
export type { RewriteKind } from "./llm/reformulate";

// Evaluation: the five metrics, breakdowns, error analysis, statistics and significance.
export { evaluate, METRICS, type Metric, type MetricValues, type Evaluation, type CutMetric, type EvalMetric, type Scores } from "./eval/metrics";
export type { MetricName, MetricSpelling } from "./eval/metric-names";
export { byArea, type GroupMetrics } from "./eval/breakdown";
export {
  analyseErrors,
  goldRankDistribution,
  hardestQuestions,
  type ErrorAnalysis,
  type HardQuestion,
  type QueryDifference,
  type RankDistribution,
  type WinLoss,
} from "./eval/error-analysis";
export { stats, type Descriptive, type PairedTTest, type PairedTestRow, type RunCorrelation } from "./eval/statistics";
export type { PaperSignificance, PaperTest } from "./eval/significance";
export { loadPrices, type PriceTable } from "./eval/cost";

// The paper's experiments: reproduce them (or a selection), and the REACT-BM25 tables of a run.
export { experiments, type Experiment } from "./experiments/registry";
export { reproduce, type ReproduceResult, type ExperimentOutcome } from "./experiments/reproduce";
export { reactAnalysis, type ReactAnalysis } from "./experiments/assess";

// Results as DataFrames, figures, and showing them in a notebook.
export { outputFrames, resultFrames, pivot, frameRows, type ResultFrames } from "./report/frames";
export { figures } from "./figures/figures";
export { qualityCostFront, type QualityCostPoint } from "./eval/quality-cost";
export { show, toDataFrame, type TableOptions, type FigureOptions, type FigureSpec } from "./report/notebook";
export { formatFixed } from "./util/format-fixed";
