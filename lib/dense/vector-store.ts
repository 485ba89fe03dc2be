/**
 * The persistent cache of every embedding, kept in LanceDB: one table per embedding fingerprint
 * (`presetFingerprint`), one row per embedded text, keyed by the hash of the rendered text
 * (`textKey`). Embedding is the slow and paid part of dense retrieval; because every `put` is a
 * committed LanceDB version when it resolves, a run killed half-way loses at most the batch in
 * flight and the next run asks the provider only for what `get` does not return.
 *
 * Several processes may share one store (two runs on one data folder): writes to a table, and
 * the embedding of a batch through `exclusive`, hold the table's cross-process lock, so no vector
 * is written or paid for twice. A table whose data files are damaged is rebuilt, when it is read,
 * from every vector that can still be read, and the rest is simply missing from the cache (see
 * lance-vector-store.ts).
 *
 * Exact search is not done here (an in-memory kernel over the vectors `get` returns is faster for
 * a corpus of a few thousand articles); this module adds optional approximate search (IVF_PQ) for
 * larger corpora and for comparing ANN with exact search.
 *
 * This file is the contract and the entry point; the LanceDB implementation is in
 * lance-vector-store.ts, the table layout (names, Arrow encoding, row checks) in lance-table.ts.
 */
import path from "node:path";
import { lancedbSdk } from "../util/sdk";
import { LanceVectorStore, type LanceVectorStoreOptions } from "./lance-vector-store";
import type { CachedVector, EmbeddingProvenance, Side } from "./types";
import { readConfig, type Config } from "../config";

export type { EmbeddingProvenance } from "./types";

export { DOCS_SUFFIX, tableName, VectorStoreError } from "./lance-table";

/**
 * Options of `openVectorStore`.
 */
export type OpenVectorStoreOptions = LanceVectorStoreOptions;

/** One cached embedding. */
export interface VectorRow {
  /** `textKey(rendered text)`: the cache key; a key already stored is never written again. */
  key: string;
  /** Article or query id the vector was first computed for (informational; returned by ANN). */
  id: string;
  side: Side;
  vector: Float32Array;
  /**
   * Tokens the provider reported for this text (its share of the batch's count), when known.
   * Stored in a nullable column; tables written before the column existed keep their four
   * columns, and rows appended to them store no tokens.
   */
  tokens?: number;
}

/** Shape of the IVF_PQ index built by `buildAnnIndex`. */
export interface AnnIndexOptions {
  /** IVF partitions (default: about √(documents), at most documents / 40 so k-means has data). */
  partitions?: number;
  /** PQ sub-vectors; must divide the dimension (default dims / 16, or dims / 8, as LanceDB). */
  subVectors?: number;
}

/** Recall/latency knobs of one ANN search. */
export interface AnnSearchOptions {
  /** IVF partitions probed per query (LanceDB's default is 20). */
  nprobes?: number;
  /** Re-rank `k × refineFactor` PQ candidates by their exact dot product (unset: no re-rank). */
  refineFactor?: number;
}

/** One query's approximate top k, best first. */
export interface AnnResult {
  /** Document ids, best first. */
  ids: string[];
  /**
   * Cache keys of the same rows. Articles whose rendered texts are identical share one row (and
   * so the id stored first); a caller that needs every such article maps keys back itself.
   */
  keys: string[];
  /** Dot products (exact when `refineFactor` is set, PQ estimates otherwise). */
  scores: number[];
}

/**
 * The embedding cache. Methods take the embedding fingerprint (`presetFingerprint(preset)`), which
 * names the table, so vectors of different models or templates never mix.
 */
export interface VectorStore {
  /** The LanceDB URI the store was opened on. */
  readonly uri: string;
  /**
   * The stored vectors for those keys, each with its stored token count (absent when unknown:
   * the provider gave none, or the row predates the tokens column). Keys not stored are absent
   * from the map; an unknown fingerprint gives an empty map. A table found damaged is first
   * rebuilt from what can still be read (reported through the store's log), so keys that were
   * lost are absent too; a table that cannot be rebuilt rejects with a `VectorStoreError`.
   */
  get(fingerprint: string, keys: readonly string[]): Promise<Map<string, CachedVector>>;
  /**
   * Appends rows whose key is not yet stored (keys already present, and repeats within the
   * batch, are skipped). The first put creates the table with the first row's dimension. The
   * whole batch is validated before anything is written: a vector of another dimension, one
   * holding NaN or ±Infinity, or a token count that is not a non-negative integer, rejects the
   * put with an Error naming the row's id, and none of the batch is stored. Resolves once the
   * rows are committed. Puts to one table are serialised across processes (the table's lock), and
   * keys another process stored meanwhile are skipped too.
   */
  put(fingerprint: string, rows: readonly VectorRow[]): Promise<void>;
  /**
   * Runs `fn` holding the fingerprint's cross-process write lock: callers in this process share
   * it, another process's callers (and their puts) wait until the last of them is done. The
   * embedding pipeline embeds a batch inside it after checking again which of the batch's keys
   * are stored, so of two processes embedding the same texts only one pays. Puts made inside
   * `fn` take the same lock without waiting. A lock left by a killed process is taken over once
   * it is 10 s old. Object-store URIs have no lock: `fn` simply runs.
   */
  exclusive<T>(fingerprint: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Who embedded a fingerprint's vectors: the model names servers reported and whether any
   * vector came from the project's test double. Kept beside the table (`<uri>/.provenance/`),
   * so a run served from the cache still says what produced its vectors; a table filled partly
   * by a test double stays marked as a whole. Empty for an unknown table or an object store.
   */
  provenance(fingerprint: string): Promise<EmbeddingProvenance>;
  /**
   * Adds what produced newly stored vectors to the fingerprint's provenance (a union: names are
   * added, a stand-in mark is never removed).
   */
  noteProvenance(fingerprint: string, p: EmbeddingProvenance): Promise<void>;
  /**
   * Rows stored under a fingerprint, optionally of one side only (0 when there is no table).
   */
  count(fingerprint: string, side?: Side): Promise<number>;
  /**
   * Vector size of a fingerprint's table, or undefined when nothing is stored yet.
   */
  dims(fingerprint: string): Promise<number | undefined>;
  /**
   * Names of the stored vector tables: the fingerprints (`presetFingerprint` already yields
   * valid names; another string is stored under its sanitized form, see `tableName`).
   */
  tables(): Promise<string[]>;
  /**
   * Deletes a fingerprint's vectors (and its ANN table); no error when there are none.
   */
  drop(fingerprint: string): Promise<void>;
  /**
   * Builds (or rebuilds) the IVF_PQ index, distance "dot", over the document vectors. They are
   * first copied to a table of their own, `<table>__docs`, so the index is trained on documents
   * only and searches need no side filter; `annSearch` refuses to use it once documents have
   * been added after the build.
   */
  buildAnnIndex(fingerprint: string, opts?: AnnIndexOptions): Promise<void>;
  /**
   * Approximate top-k documents by dot product for each query vector, best first.
   */
  annSearch(fingerprint: string, queries: readonly Float32Array[], k: number, opts?: AnnSearchOptions): Promise<AnnResult[]>;
  /**
   * Whether an ANN index exists and covers every stored document vector (so `annSearch` may
   * use it without `buildAnnIndex` first).
   */
  hasCurrentAnnIndex(fingerprint: string): Promise<boolean>;
  /**
   * Releases the connection and open tables (optional; they are also freed when collected).
   */
  close(): void;
}

/**
 * Where vectors are cached unless a caller names a store: `GBR_VECTOR_STORE` (a folder or any
 * LanceDB URI, e.g. `s3://bucket/gbr-vectors` shared by a group, credentials from the usual
 * AWS_* variables), else `<data folder>/lancedb`.
 */
export function defaultVectorStoreUri(config: Pick<Config, "vectorStore" | "dataDir"> = readConfig()): string {
  return config.vectorStore ?? path.join(config.dataDir, "lancedb");
}

/**
 * Opens (creating on first write) the embedding cache at a LanceDB URI: a local directory
 * (default `<dataDir()>/lancedb`) or an object store such as `s3://bucket/prefix`,
 * `gs://bucket/prefix` or `az://container/prefix`. Object-store credentials and region are not
 * passed here: LanceDB reads them from the environment as its object_store layer does
 * (`AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` / `AWS_REGION` /
 * `AWS_ENDPOINT`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME` / `AZURE_STORAGE_ACCOUNT_KEY`, …).
 * A local store keeps its cross-process locks in `<uri>/.locks/`. Repairs of damaged tables and
 * waits for another process go to `opts.log` (default: stderr).
 */
export async function openVectorStore(uri: string = defaultVectorStoreUri(), opts: OpenVectorStoreOptions = {}): Promise<VectorStore> {
  // readConsistencyInterval 0: every read sees versions committed by other processes (two runs
  // may share a cache). The check is a cheap directory read on a local disk; on an object store
  // it is one extra request per read, still small next to an embedding call.
  const db = await lancedbSdk().connect(uri, { readConsistencyInterval: 0 });
  return new LanceVectorStore(uri, db, opts);
}

/**
 * ANN recall against exact search: the mean over queries of |ann top k ∩ exact top k| / k
 * (1 when the ANN lists are the exact ones; 0 when there are no queries).
 */
export function annRecallAtK(exact: readonly (readonly string[])[], ann: readonly (readonly string[])[], k: number): number {
  if (!(Number.isInteger(k) && k > 0)) throw new Error(`annRecallAtK: k must be a positive integer, got ${k}`);
  if (exact.length !== ann.length) throw new Error(`annRecallAtK: ${exact.length} exact rankings but ${ann.length} ANN rankings`);
  if (exact.length === 0) return 0;
  let sum = 0;
  for (let q = 0; q < exact.length; q++) {
    const truth = new Set(exact[q].slice(0, k));
    // A Set of the ANN list too: a repeated id must not count twice.
    let hits = 0;
    for (const id of new Set(ann[q].slice(0, k))) if (truth.has(id)) hits++;
    sum += hits / k;
  }
  return sum / exact.length;
}
