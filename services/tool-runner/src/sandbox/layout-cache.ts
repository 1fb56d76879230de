import { detectProjectLayout, type ProjectLayout } from "./project-layout.js";

/** How long a detected layout is used before the next call detects it again. */
export const layoutMaxAgeMs = 5000;
/** A forced refresh (a call naming a folder the layout does not know) happens at most this often. */
export const layoutMinRefreshMs = 1000;

/**
 * The project's layout, detected at start-up and kept: a call re-detects it only when it is older than
 * `layoutMaxAgeMs`, or when it needs a folder the layout lacks (an install made after start-up), and then at
 * most once per `layoutMinRefreshMs`, so unknown bundle paths cannot make every call rescan the project.
 * Concurrent callers share one detection.
 */
export class LayoutCache {
  private layout: Promise<ProjectLayout>;
  private detectedAt: number;

  constructor(
    private readonly projectRoot: string,
    private readonly now: () => number = Date.now,
  ) {
    this.detectedAt = now();
    this.layout = detectProjectLayout(projectRoot);
  }

  /** The current layout, re-detected when stale. */
  current(): Promise<ProjectLayout> {
    if (this.now() - this.detectedAt >= layoutMaxAgeMs) this.detect();
    return this.layout;
  }

  /** The layout, re-detected first unless that was done very recently; for a call naming an unknown folder. */
  refresh(): Promise<ProjectLayout> {
    if (this.now() - this.detectedAt >= layoutMinRefreshMs) this.detect();
    return this.layout;
  }

  private detect(): void {
    this.detectedAt = this.now();
    const previous = this.layout;
    // a failed detection keeps the last good layout
    this.layout = detectProjectLayout(this.projectRoot).catch(() => previous);
  }
}
