/**
 * Runs `work` at most once per animation frame however often it is requested: a streamed answer arrives
 * in many small deltas, and re-rendering its markdown once per frame keeps that cheap.
 */
export function frameThrottle(work: () => void): { request(): void; flush(): void } {
  let pending = 0;
  return {
    request() {
      if (pending === 0) {
        pending = requestAnimationFrame(() => {
          pending = 0;
          work();
        });
      }
    },
    flush() {
      if (pending !== 0) cancelAnimationFrame(pending);
      pending = 0;
      work();
    },
  };
}
