/**
 * The public API of greekbar-retrieval: load a benchmark, retrieve, evaluate.
 *
 * @example
 * import { loadBenchmark, createRetriever, evaluate } from "greekbar-retrieval";
 * const { benchmark } = await loadBenchmark("sample");
 * const bm25 = await createRetriever("bm25-greekstemmer", benchmark);
 * const run = await bm25.retrieve(benchmark.queries, 100);
 * evaluate(run.rankings, benchmark.qrels).mean["Recall@100"];
 */
export type { Benchmark, Doc, DocId, Query, QueryId, QueryMeta, Ranking, Retriever, Run, Tokenizer } from "./types";
export { NO_AREA, sourceOf } from "./types";

// data
export { loadBenchmark, type LoadedBenchmark, type LoadOptions } from "./data/source";
export { readBeir, writeBeir, readJsonl, readMeta, readQrelsTsv, decodeUtf8 } from "./data/beir";
export { readQrels, writeTrecQrels } from "./data/qrels";
export { readRun, readTrec, readJsonRun, writeTrec, writeJsonRun, formatTrec, checkRunCoverage, type RunCoverage } from "./data/runs";
export { pullHub, pullHubToDir } from "./data/hub";
export { datasetStats, areaStats, median, type DatasetStats, type AreaStats } from "./data/stats";
export { DataError } from "./util/errors";
export { DownloadError } from "./util/download";
export { SAMPLE_DIR, dataDir } from "./paths";

// text
export { clean, foldUpper, foldLower, words } from "./text/normalize";
export { stem, createCachedStemmer } from "./text/greek-stemmer";
export { greekStemmerTokenizer, grnlpTokenizer } from "./text/tokenizers";
export { createTokenizer, canonicalTokenizer, TOKENIZERS } from "./text/registry";
export { Analyzer, type WordTokenizer } from "./text/analyzer";
export { GREEK_STEMMER_STOPWORDS } from "./text/stopwords";

// retrieval
export { Bm25Index, Bm25Scorer, okapiIdf, DEFAULT_BM25, type Bm25Params } from "./sparse/bm25";
export { indexCorpus, bm25Search, bm25Run, type IndexedCorpus } from "./sparse/bm25-retriever";
export { createRetriever, registerRetriever, retrieverNames, supportsFeedback, type RetrieverOptions, type RetrieverFactory, type FeedbackRetriever } from "./retrievers";

// dense, fusion
export { BUILTIN_PRESETS, allPresets, builtinPresets, embedNaming, preset, presetFingerprint, renderTemplate, type EmbedNaming, type EmbeddingPreset } from "./dense/presets";
export { apportion, embedItems, memoryCache, type VectorCache } from "./dense/embed";
export { ExactIndex, normalize } from "./dense/exact-search";
export { fitLsi, LsiModel } from "./dense/lsi";
export { rocchio } from "./dense/rocchio";
export { EmbeddingError, type CachedVector, type Embedder, type EmbedResult, type Side } from "./dense/types";
export { VectorStoreError } from "./dense/lance-table";
export type { EmbeddingProvenance, VectorStore } from "./dense/vector-store";
export type { DenseRetriever, DenseRetrieverInfo, DenseUsage, VectorRetriever } from "./dense/register";
export { rrf } from "./fusion/rrf";
export { allRerankPresets, BUILTIN_RERANK_PRESETS, rerankPreset, type RerankPreset } from "./rerank/presets";
export { rerankClient, rerankClientFromEnv, RerankError, type RerankClient } from "./rerank/client";
export { crossEncoderRerankRun } from "./rerank/cross-encoder";
export { openScoreCache, type ScoreCache } from "./rerank/score-cache";
export { parseRerankName } from "./rerank/register";
export { listwiseRerankRun, parsePermutation } from "./llm/rerank-listwise";
export { expandQuery } from "./sparse/prf";
export { explainBm25, type Bm25Explanation, type TermContribution } from "./sparse/explain";

// evaluation
export { evaluate, queryMetrics, meanOf, dedupeCut, METRICS, DEPTH, type Metric, type MetricValues, type Evaluation } from "./eval/metrics";
export { describe, pairedTTest, pairedTests, perQueryCorrelation, spearman, type Descriptive, type PairedTTest, type PairedTestRow } from "./eval/statistics";
export {
  analyseErrors,
  firstGoldRankDistribution,
  firstGoldRanks,
  goldRanks,
  hardestQuestions,
  largestDifferences,
  winLoss,
  type ErrorAnalysis,
  type HardQuestion,
  type QueryDifference,
  type WinLoss,
} from "./eval/error-analysis";
export { formatFixed } from "./report/format";
export { outputFrames, pivot, resultFrames, rowsFrame, sweepFrame, significanceFrame, tableFrame, frameRows, type ResultFrames } from "./report/frames";

// experiments
export { EXPERIMENTS, SkipExperiment, type Experiment } from "./experiments/registry";
export { reproduce, type ReproduceResult, type ExperimentOutcome } from "./experiments/reproduce";
