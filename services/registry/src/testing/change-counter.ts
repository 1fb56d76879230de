/** Counts `onChange` calls; `next()` waits for one more. */
export function changeCounter() {
  let calls = 0;
  const waiters: (() => void)[] = [];
  return {
    onChange: () => {
      calls++;
      waiters.splice(0).forEach((wake) => wake());
    },
    get calls() {
      return calls;
    },
    async next(timeoutMs = 2000): Promise<void> {
      const before = calls;
      const deadline = Date.now() + timeoutMs;
      while (calls === before) {
        if (Date.now() > deadline) throw new Error("no change seen");
        await new Promise<void>((wake) => {
          waiters.push(wake);
          setTimeout(wake, 20);
        });
      }
    },
  };
}
