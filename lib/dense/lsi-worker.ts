/**
 * The worker thread of `fitLsiMany` (./lsi.ts): holds the TF-IDF matrices it was sent (by id)
 * and computes its rows of a sparse product into the shared result, with the very kernels the
 * main thread runs (`mulARows`, `mulAtRows`), so the fit is the same to the bit. It also fits
 * whole models for `fitLsiInWorker` ("fit"), with `fitLsi` itself.
 */
import { serveRequests } from "../util/worker";
import { mulARows, mulAtRows, type CsrMatrix, type DocTermMatrix } from "./svd";
import { fitParts, type LsiOptions, type LsiPostings } from "./lsi";

const matrices = new Map<number, { A: Pick<DocTermMatrix, "termStart" | "postingDoc" | "weight">; rows: CsrMatrix }>();

serveRequests((m) => {
  if (m.kind === "load") {
    matrices.set(m.matrix as number, { A: m.A as Pick<DocTermMatrix, "termStart" | "postingDoc" | "weight">, rows: m.rows as CsrMatrix });
    return true;
  }
  if (m.kind === "mul") {
    const entry = matrices.get(m.matrix as number);
    if (!entry) throw new Error(`no matrix ${String(m.matrix)} loaded in this worker`);
    const [X, out, c, from, to, base] = [m.X as Float64Array, m.out as Float64Array, m.c as number, m.from as number, m.to as number, m.base as number];
    if (m.side === "A") mulARows(entry.rows, X, c, out, from, to, base);
    else mulAtRows(entry.A, X, c, out, from, to, base);
    // The rows are in `out` (shared memory): nothing to send back.
    return true;
  }
  if (m.kind === "fit") return fitParts(m.postings as LsiPostings, m.opts as LsiOptions);
  throw new Error(`unknown request kind '${String(m.kind)}'`);
});
