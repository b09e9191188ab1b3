/** `promise`, or a rejection with Error('timeout') once `ms` have passed first (the timer holds no process open). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);
}
