/**
 * Runs `task(0)` … `task(n − 1)` in order, `width` at a time. After a failure no new task starts and those running
 * finish (what they store stays stored); the first failure is returned with its task's index, undefined when none.
 *
 * @example
 * const failure = await untilFailure(items.length, 4, async (i) => save(await fetchOne(items[i])));
 * if (failure) throw failure.error;
 */
export async function untilFailure(n: number, width: number, task: (index: number) => Promise<void>): Promise<{ error: unknown; index: number } | undefined> {
  let next = 0;
  let failure: { error: unknown; index: number } | undefined;
  const worker = async () => {
    while (failure === undefined && next < n) {
      const index = next++;
      try {
        await task(index);
      } catch (error) {
        failure ??= { error, index };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
  return failure;
}
