/** Runs `task(0)` … `task(n − 1)`, `width` at a time, until one fails (those running finish); the first failure, if any. */
export async function untilFailure(n: number, width: number, task: (index: number) => Promise<void>): Promise<{ error: unknown; index: number } | undefined> {
  if (!(Number.isInteger(width) && width >= 1)) throw new RangeError(`concurrency must be a positive integer, got ${width}`);
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
