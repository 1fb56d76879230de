const keyPrefix = "agent-orchestrator.pending.";

/**
 * The message of a turn still running, per session, kept for this tab only. A session's stored
 * conversation gains the user's message when the turn ends, so a page reloaded mid-turn would otherwise
 * show an answer to nothing.
 */
export const pendingMessage = {
  get(sessionId: string): string | undefined {
    try {
      return sessionStorage.getItem(keyPrefix + sessionId) ?? undefined;
    } catch {
      return undefined;
    }
  },
  set(sessionId: string, text: string): void {
    try {
      sessionStorage.setItem(keyPrefix + sessionId, text);
    } catch {
      // without storage a reload shows the answer alone
    }
  },
  clear(sessionId: string): void {
    try {
      sessionStorage.removeItem(keyPrefix + sessionId);
    } catch {
      // nothing stored
    }
  },
};
