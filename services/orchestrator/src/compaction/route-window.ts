/** A model route's context window (docs/models.md "Context windows"): tokens it reads at most, and those kept for its answer. */
export interface RouteWindow {
  tokens: number;
  outputReserve: number;
}

/** The most a prompt may take: the window less the answer's reserve. No prompt is sent past it. */
export const promptLimit = (window: RouteWindow): number => window.tokens - window.outputReserve;

/** The prompt size past which a chat is compacted: `percent` of the window, never above the prompt limit. */
export const compactionThreshold = (window: RouteWindow, percent: number): number => Math.min(Math.floor((window.tokens * percent) / 100), promptLimit(window));
