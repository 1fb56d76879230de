/** The handlers and rules of an agent file, from the registry's activation document. */
export interface AgentRules {
  handlers: Readonly<Record<string, string>>;
  rules: readonly string[];
}
