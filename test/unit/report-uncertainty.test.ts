import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { bootstrapCIs } from "../../lib/eval/bootstrap";
import { metricBarChart } from "../../lib/report/figures";
import { metricIntervals, REPORT_BOOTSTRAP } from "../../lib/report/intervals";
import { ORACLE_LABEL, rowMarks } from "../../lib/report/labels";
import { Pcg64 } from "../../lib/util/random";

// Issue 23, item 7: the metric bars carry 95% bootstrap intervals (per-query.csv, sample 0, one set of resamples for
// every experiment).

/** per-query.csv rows: `n` queries of each experiment, values from `value(experiment index, query index)`. */
function perQueryRows(ids: readonly string[], n: number, value: (e: number, q: number) => number, sample = 0): Record<string, string>[] {
  return ids.flatMap((experiment, e) => Array.from({ length: n }, (_, q) => ({ experiment, sample: String(sample), query: `Q${q}`, "Recall@100": String(value(e, q)), "nDCG@10": String(value(e, q) / 2) })));
}

/** Values in [0, 1) from the project's generator, so every run of the tests sees the same data. */
function uniform(seed: number): (e: number, q: number) => number {
  const rng = Pcg64.fromSeed(seed);
  const cache = new Map<string, number>();
  return (e, q) => {
    const key = `${e}:${q}`;
    if (!cache.has(key)) cache.set(key, rng.nextDouble());
    return cache.get(key)!;
  };
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe("metricIntervals: bootstrap intervals of each experiment's mean from per-query.csv", () => {
  const ids = ["bm25-greekstemmer", "lsi", "oracle:bm25-greekstemmer"];

  test("each interval holds its mean; more queries, narrower intervals; the report's settings by default", () => {
    const value = uniform(1);
    const small = metricIntervals(perQueryRows(ids, 40, value), ["Recall@100", "nDCG@10"], { resamples: 2_000 });
    const large = metricIntervals(perQueryRows(ids, 1_000, value), ["Recall@100", "nDCG@10"], { resamples: 2_000 });
    for (const [metric, byId] of small) {
      for (const id of ids) {
        const s = byId.get(id)!;
        const l = large.get(metric)!.get(id)!;
        for (const ci of [s, l]) assert.ok(ci.lower < ci.mean && ci.mean < ci.upper, `${metric} ${id}: ${JSON.stringify(ci)}`);
        // The sd of a mean shrinks as 1/√n: 25× the queries, a fifth of the width (give or take the resampling).
        assert.ok(l.upper - l.lower < (s.upper - s.lower) / 3, `${metric} ${id}: ${l.upper - l.lower} vs ${s.upper - s.lower}`);
      }
    }
    assert.equal(small.get("Recall@100")!.get("lsi")!.mean, mean(Array.from({ length: 40 }, (_, q) => value(1, q))));
    const ci = metricIntervals(perQueryRows(ids.slice(0, 1), 30, value), ["Recall@100"]).get("Recall@100")!.get(ids[0])!;
    assert.deepEqual([ci.level, ci.resamples], [REPORT_BOOTSTRAP.level, REPORT_BOOTSTRAP.resamples]);
    assert.deepEqual(REPORT_BOOTSTRAP, { resamples: 10_000, seed: 42, level: 0.95 });
  });

  test("deterministic with the seed, and paired: the very intervals bootstrapCIs gives the series together", () => {
    const rows = perQueryRows(ids, 60, uniform(2));
    const a = metricIntervals(rows, ["Recall@100"], { resamples: 3_000 });
    assert.deepEqual(metricIntervals(rows, ["Recall@100"], { resamples: 3_000 }), a);
    assert.notDeepEqual(metricIntervals(rows, ["Recall@100"], { resamples: 3_000, seed: 7 }), a);
    const series = ids.map((id) => rows.filter((r) => r.experiment === id).map((r) => Number(r["Recall@100"])));
    assert.deepEqual(ids.map((id) => a.get("Recall@100")!.get(id)), bootstrapCIs(series, { resamples: 3_000, seed: 42, level: 0.95 }));
  });

  test("sample 0 only (as the tests of significance); experiments on other queries are bootstrapped apart; a filter of ids", () => {
    const value = uniform(3);
    const rows = [...perQueryRows(ids, 50, value), ...perQueryRows(ids, 50, () => 1, 1), ...perQueryRows(["other"], 20, value)];
    const cis = metricIntervals(rows, ["Recall@100"], { resamples: 1_000 }).get("Recall@100")!;
    assert.equal(cis.get("lsi")!.mean, mean(Array.from({ length: 50 }, (_, q) => value(1, q))), "sample 1 (all ones) left out");
    assert.equal(cis.get("other")!.mean, mean(Array.from({ length: 20 }, (_, q) => value(0, q))));
    assert.deepEqual([...metricIntervals(rows, ["Recall@100"], { resamples: 1_000, experiments: ["lsi"] }).get("Recall@100")!.keys()], ["lsi"]);
    assert.equal(metricIntervals([], ["Recall@100"]).get("Recall@100")!.size, 0);
  });
});

describe("metricBarChart: whiskers are the bootstrap interval, and the figure says so", () => {
  const summary = [
    { experiment: "bm25-greekstemmer", status: "ok", "Recall@100": "0.6", samples: "1" },
    { experiment: "lsi", status: "ok", "Recall@100": "0.5", samples: "1", standIn: "stand-in" },
    { experiment: "oracle:bm25-greekstemmer", status: "ok", "Recall@100": "0.7", samples: "1" },
    { experiment: "reform:bm25-greekstemmer", status: "ok", "Recall@100": "0.8", samples: "3", "sd Recall@100": "0.02" },
    { experiment: "old", status: "ok", "Recall@100": "0.3", samples: "2", "sd Recall@100": "0.05" },
  ];
  const ci = (mean: number, lower: number, upper: number) => ({ mean, lower, upper, level: 0.95, resamples: 10_000 });
  const intervals = new Map([
    ["bm25-greekstemmer", ci(0.6, 0.55, 0.66)],
    ["lsi", ci(0.5, 0.44, 0.57)],
    ["oracle:bm25-greekstemmer", ci(0.7, 0.64, 0.75)],
    ["reform:bm25-greekstemmer", ci(0.79, 0.74, 0.84)],
  ]);
  type Bars = { name: string; y: string[]; x: number[]; text: string[]; marker: { color: string; pattern?: { shape: string } }; error_x?: { symmetric?: boolean; array: number[]; arrayminus?: number[] }; customdata?: unknown[][]; hovertemplate: string };

  test("asymmetric whiskers from each interval; stand-in and oracle rows keep their marks; no interval, sd as before", () => {
    const fig = metricBarChart(summary, "Recall@100", { intervals, marks: rowMarks(summary) });
    const bars = fig.data as Bars[];
    // The trace of each experiment, cut down to its bar.
    const of = (id: string): Bars => {
      const t = bars.find((b) => b.y.includes(id))!;
      const i = t.y.indexOf(id);
      const error_x = t.error_x && { ...t.error_x, array: [t.error_x.array[i]], arrayminus: t.error_x.arrayminus && [t.error_x.arrayminus[i]] };
      return { ...t, y: [id], x: [t.x[i]], text: [t.text[i]], error_x, customdata: t.customdata && [t.customdata[i]] };
    };
    const near = (got: number[] | undefined, want: number[]) => want.forEach((w, i) => assert.ok(Math.abs(got![i] - w) < 1e-12, `${got} vs ${want}`));
    const plain = of("bm25-greekstemmer");
    assert.equal(plain.error_x!.symmetric, false);
    near(plain.error_x!.array, [0.06]);
    near(plain.error_x!.arrayminus, [0.05]);
    assert.deepEqual(plain.text, ["0.6000"]);
    // The repeated run: the bar is the mean over samples, ± sd in its label, the interval sample 0's.
    const reform = of("reform:bm25-greekstemmer");
    assert.deepEqual(reform.text, ["0.8000 ± 0.0200"]);
    near(reform.error_x!.array, [0.04]);
    near(reform.error_x!.arrayminus, [0.06]);
    assert.match(String(reform.customdata![0][3]), /the interval is sample 0's \(mean 0\.7900\)/);
    assert.equal(bars.find((b) => b.y.includes("reform:bm25-greekstemmer")), bars.find((b) => b.y.includes("bm25-greekstemmer")), "one trace for the plain results");
    // Marks kept: the stand-in hatched and grey, the oracle orange and named, both with whiskers.
    const lsi = of("lsi");
    assert.equal(lsi.marker.pattern?.shape, "/");
    near(lsi.error_x!.arrayminus, [0.06]);
    const oracle = of("oracle:bm25-greekstemmer");
    assert.equal(oracle.name, ORACLE_LABEL);
    assert.equal(oracle.marker.color, "#d97706");
    near(oracle.error_x!.array, [0.05]);
    // Without an interval (not in per-query.csv): ± sd whiskers, as before.
    const old = of("old");
    assert.deepEqual(old.error_x!.array, [0.05]);
    assert.equal(old.error_x!.arrayminus, undefined);
    assert.match(old.name, /mean ± sd/);
    assert.match(plain.hovertemplate, /95% bootstrap interval of the mean|%\{customdata\[2\]\}/);
    assert.equal(plain.customdata![0][2], "95% bootstrap interval of the mean");
  });

  test("the title says what the whiskers are; the axis reaches the farthest whisker", () => {
    const fig = metricBarChart(summary, "Recall@100", { intervals });
    const [first, second] = fig.layout.title.text.split("<br>");
    assert.equal(first, "Recall@100 by experiment (mean ± sd over samples)");
    assert.match(second, /whiskers: 95% bootstrap interval of the mean over queries, 10,000 resamples \(sample 0 of repeated runs; ± in the label: sd over samples\)/);
    assert.equal((fig.layout.xaxis as { range: number[] }).range[1], 0.84 * 1.15);
    // Without intervals, the chart is what it was.
    const bare = metricBarChart(summary.slice(0, 3), "Recall@100");
    assert.equal(bare.layout.title.text, "Recall@100 by experiment");
    assert.ok(bare.data.every((t) => t.error_x === undefined));
  });
});
