/** Who embedded a table's vectors, in `<uri>/.provenance/<table>.json` (not kept for an object store). */
import path from "node:path";
import { readJsonIfAny, writeAtomically } from "../util/safe-files";
import type { VectorTables } from "./vector-tables";

/** The model names the servers reported, and whether any vector came from the project's test double. */
export type EmbeddingProvenance = { servedModels: string[]; standIn: boolean };

export function mergeProvenance(a: EmbeddingProvenance, b: EmbeddingProvenance): EmbeddingProvenance {
  return { servedModels: [...new Set([...a.servedModels, ...b.servedModels])], standIn: a.standIn || b.standIn };
}

function fileOf(t: VectorTables, name: string): string | undefined {
  return t.localDir ? path.join(t.localDir, ".provenance", `${name}.json`) : undefined;
}

/** A table's provenance; empty when unknown (no file, an object store, or a file that is not JSON). */
export async function readProvenance(t: VectorTables, name: string): Promise<EmbeddingProvenance> {
  const file = fileOf(t, name);
  const j = file ? await readJsonIfAny<Partial<EmbeddingProvenance>>(file) : undefined;
  const models = j && Array.isArray(j.servedModels) ? j.servedModels : [];
  return { servedModels: models.filter((m): m is string => typeof m === "string"), standIn: j?.standIn === true };
}

/** Adds to a table's provenance (a union: a stand-in mark is never removed), holding its lock. */
export async function noteProvenance(t: VectorTables, name: string, p: EmbeddingProvenance): Promise<void> {
  const file = fileOf(t, name);
  if (!file || (p.servedModels.length === 0 && !p.standIn)) return;
  await t.locked(name, async () => {
    const old = await readProvenance(t, name);
    const merged = mergeProvenance(old, p);
    if (merged.standIn === old.standIn && merged.servedModels.length === old.servedModels.length) return;
    await writeAtomically(file, (fh) => fh.writeFile(JSON.stringify(merged) + "\n"), t.localDir!, "GBR_VECTOR_STORE");
  });
}
