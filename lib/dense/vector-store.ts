/**
 * The embedding cache in LanceDB: a table per preset fingerprint, a row per rendered-text hash; a resolved `put` is
 * committed, so a killed run loses only what was in flight. IVF_PQ is optional (exact in-memory search is faster).
 */
import path from "node:path";
import { lancedbSdk } from "../util/sdk";
import { LanceVectorStore, type LanceVectorStoreOptions } from "./lance-vector-store";
import type { CachedVector, EmbeddingProvenance } from "./types";
import type { Side } from "../models/embed";
import { readConfig, type Config } from "../config";

export type { EmbeddingProvenance } from "./types";

export { DOCS_SUFFIX, tableName, VectorStoreError } from "./lance-table";

export type OpenVectorStoreOptions = LanceVectorStoreOptions;

export interface VectorRow {
  /** `textKey(rendered text)`; a key already stored is never written again. */
  key: string;
  /** Article or query id the vector was first computed for (informational; ANN returns it). */
  id: string;
  side: Side;
  vector: Float32Array;
  /** This text's share of the batch's reported tokens, when known. */
  tokens?: number;
}

export interface AnnIndexOptions {
  /** IVF partitions (default: about √(documents), at most documents / 40 so k-means has data). */
  partitions?: number;
  /** PQ sub-vectors; must divide the dimension (default dims / 16, or dims / 8, as LanceDB). */
  subVectors?: number;
}

export interface AnnSearchOptions {
  /** IVF partitions probed per query (LanceDB's default is 20). */
  nprobes?: number;
  /** Re-rank `k × refineFactor` PQ candidates by their exact dot product (unset: no re-rank). */
  refineFactor?: number;
}

/** One query's approximate top k, best first. */
export interface AnnResult {
  ids: string[];
  /** Cache keys of the same rows; articles with identical rendered texts share one row (the id stored first). */
  keys: string[];
  /** Dot products (exact when `refineFactor` is set, PQ estimates otherwise). */
  scores: number[];
}

/** The embedding cache. The fingerprint (`presetFingerprint(preset)`) names the table, so spaces never mix. */
export interface VectorStore {
  readonly uri: string;
  /** Vectors stored for those keys; a damaged table is first rebuilt from what is readable, else `VectorStoreError`. */
  get(fingerprint: string, keys: readonly string[]): Promise<Map<string, CachedVector>>;
  /** Appends rows with new keys, resolving once committed; one invalid row (named) rejects the whole batch. */
  put(fingerprint: string, rows: readonly VectorRow[]): Promise<void>;
  /**
   * Runs `fn` holding the fingerprint's cross-process write lock (shared within this process; puts inside it
   * do not wait). A killed process's lock is taken over at 10 s old; object stores have no lock.
   */
  exclusive<T>(fingerprint: string, fn: () => Promise<T>): Promise<T>;
  /** Who embedded the vectors (in `<uri>/.provenance/`; a test-double row marks the whole table); empty if unknown. */
  provenance(fingerprint: string): Promise<EmbeddingProvenance>;
  /** Adds to the provenance (a union: a stand-in mark is never removed). */
  noteProvenance(fingerprint: string, p: EmbeddingProvenance): Promise<void>;
  /** Rows stored, optionally of one side only (0 when there is no table). */
  count(fingerprint: string, side?: Side): Promise<number>;
  dims(fingerprint: string): Promise<number | undefined>;
  /** Names of the stored vector tables (a fingerprint under its sanitized form, see `tableName`). */
  tables(): Promise<string[]>;
  /** Deletes a fingerprint's vectors and ANN table; no error when there are none. */
  drop(fingerprint: string): Promise<void>;
  /** IVF_PQ ("dot") over a `<table>__docs` copy of the documents (no side filter); stale once documents are added. */
  buildAnnIndex(fingerprint: string, opts?: AnnIndexOptions): Promise<void>;
  annSearch(fingerprint: string, queries: readonly Float32Array[], k: number, opts?: AnnSearchOptions): Promise<AnnResult[]>;
  /** Whether an ANN index exists and covers every stored document vector. */
  hasCurrentAnnIndex(fingerprint: string): Promise<boolean>;
  /** Optional: also freed when collected. */
  close(): void;
}

/** `GBR_VECTOR_STORE` (a folder or any LanceDB URI), else `<data folder>/lancedb`. */
export function defaultVectorStoreUri(config: Pick<Config, "vectorStore" | "dataDir"> = readConfig()): string {
  return config.vectorStore ?? path.join(config.dataDir, "lancedb");
}

/**
 * Opens (creating on first write) the embedding cache at a local directory or object-store URI (`s3://`, `gs://`,
 * `az://`); LanceDB reads object-store credentials from the environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`).
 */
export async function openVectorStore(uri: string = defaultVectorStoreUri(), opts: OpenVectorStoreOptions = {}): Promise<VectorStore> {
  // 0: every read sees other processes' commits; a cheap directory read locally, one request on an object store.
  const db = await lancedbSdk().connect(uri, { readConsistencyInterval: 0 });
  return new LanceVectorStore(uri, db, opts);
}

/** Mean over queries of |ann top k ∩ exact top k| / k (0 when there are no queries). */
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
