const storageKey = "agent-orchestrator.token";

/**
 * The bearer token the user entered, kept in localStorage so it survives a reload. Storage can be
 * unavailable (private windows, blocked cookies): then the token lives only as long as the page.
 */
export class TokenStore {
  private memory: string | undefined;

  get(): string | undefined {
    try {
      return localStorage.getItem(storageKey) ?? this.memory;
    } catch {
      return this.memory;
    }
  }

  set(token: string): void {
    this.memory = token;
    try {
      localStorage.setItem(storageKey, token);
    } catch {
      // kept in memory only
    }
  }

  clear(): void {
    this.memory = undefined;
    try {
      localStorage.removeItem(storageKey);
    } catch {
      // nothing stored
    }
  }
}
