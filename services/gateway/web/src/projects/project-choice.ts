const storageKey = "agent-orchestrator.project";

type Listener = (projectId: string) => void;

/**
 * The project the page works in: `default` (the caller's personal project) until the user picks another
 * or opens a chat of another, remembered across reloads. The one place every part of the page that needs
 * "the current project" reads it from and listens to.
 */
export class ProjectChoice {
  private memory: string | undefined;
  private readonly listeners = new Set<Listener>();

  get(): string {
    try {
      return localStorage.getItem(storageKey) ?? this.memory ?? "default";
    } catch {
      return this.memory ?? "default";
    }
  }

  set(projectId: string): void {
    if (projectId === this.get()) return;
    this.memory = projectId;
    try {
      localStorage.setItem(storageKey, projectId);
    } catch {
      // kept in memory only
    }
    for (const listener of this.listeners) listener(projectId);
  }

  /** Calls `listener` with every later choice; the returned function stops that. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The page's one project choice. */
export const projectChoice = new ProjectChoice();
