/**
 * Settings as git's GIT_CONFIG_COUNT / GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n> variables: they win over every
 * config file, and a secret among them is never in a process's arguments. None: no variable.
 */
export function gitConfigEnvironment(settings: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  if (settings.length === 0) return {};
  return Object.fromEntries([
    ["GIT_CONFIG_COUNT", String(settings.length)],
    ...settings.flatMap(([key, value], index) => [
      [`GIT_CONFIG_KEY_${index}`, key],
      [`GIT_CONFIG_VALUE_${index}`, value],
    ]),
  ]) as Record<string, string>;
}
