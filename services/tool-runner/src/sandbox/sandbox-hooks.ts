/**
 * Points where tests inject a race or a fault into a real filesystem operation (docs/security.md cases 23, 24, 29,
 * 37). Production code passes none.
 */
export interface SandboxHooks {
  /** after every check, just before a file or folder is opened */
  beforeOpen?(hostPath: string): Promise<void> | void;
}
