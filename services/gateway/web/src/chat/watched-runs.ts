import type { RunEvent } from "@agent-orchestrator/shared/wire";

/** A run's last event as this page plays it: its end, or the call it paused at (docs/approvals.md). */
export const endsPlay = (event: RunEvent): boolean => event.type === "done" || event.type === "error" || event.type === "approval_required";

interface WatchedRun {
  events: RunEvent[];
  /** the highest seq kept: a watch that replays the run after a reconnect repeats what came before */
  lastSeq: number;
  ended: boolean;
  claimed: boolean;
  wake: (() => void) | undefined;
}

/**
 * The events a chat's WebSocket watch brings, kept per run so the page can play a turn it did not start (one that
 * resumed after a decision) from its first event, even when that event came before the page decided to play it.
 * A run nobody claimed is forgotten once it ends; a replayed event (same run, seq already kept) is dropped.
 */
export class WatchedRuns {
  private readonly runs = new Map<string, WatchedRun>();
  private closed = false;

  /** Keeps `event`; false when it repeats one already kept. */
  add(event: RunEvent): boolean {
    let run = this.runs.get(event.run_id);
    if (!run) {
      run = { events: [], lastSeq: -1, ended: false, claimed: false, wake: undefined };
      this.runs.set(event.run_id, run);
    }
    if (event.seq <= run.lastSeq || run.ended) return false;
    run.lastSeq = event.seq;
    run.events.push(event);
    if (endsPlay(event)) {
      run.ended = true;
      if (!run.claimed) this.runs.delete(event.run_id);
    }
    run.wake?.();
    return true;
  }

  /**
   * Keeps the run (it is no longer forgotten when it ends) for the page to play: its events from the first kept one,
   * then as they come, until it ends (or pauses), `signal` aborts or the watch closes.
   */
  claim(runId: string): (signal: AbortSignal) => AsyncGenerator<RunEvent> {
    const run = this.runs.get(runId);
    if (run) run.claimed = true;
    return (signal) => this.play(run, runId, signal);
  }

  private async *play(run: WatchedRun | undefined, runId: string, signal: AbortSignal): AsyncGenerator<RunEvent> {
    if (!run) return;
    const stop = () => run.wake?.();
    signal.addEventListener("abort", stop);
    try {
      for (let index = 0; ; index++) {
        while (index >= run.events.length) {
          if (run.ended || signal.aborted || this.closed) return;
          await new Promise<void>((resolve) => (run.wake = resolve));
          run.wake = undefined;
        }
        const event = run.events[index] as RunEvent;
        yield event;
        if (endsPlay(event)) return;
      }
    } finally {
      signal.removeEventListener("abort", stop);
      this.runs.delete(runId);
    }
  }

  /** The watch ended: every run being played ends where it is. */
  close(): void {
    this.closed = true;
    for (const run of this.runs.values()) run.wake?.();
    this.runs.clear();
  }
}
