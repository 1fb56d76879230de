/**
 * What `npm start` prints for one line of a service's output. Log fields can hold what clients sent (an
 * agent id, a path), so every control character, line break and bidi override is shown escaped: a client
 * cannot forge a log line or colour the operator's terminal.
 */

/** C0 and C1 controls, DEL, the Unicode line separators and the bidi embedding/override/isolate marks. */
const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with each unsafe character as a visible `\uXXXX` escape. */
export const escapeForConsole = (text: string): string =>
  text.replace(unsafeCharacters, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);

const levelNames: Readonly<Record<number, string>> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** Pino JSON lines become "level message {details}"; anything else is shown as is, escaped either way. */
export function formatLogLine(line: string): string {
  try {
    const { level, msg, time: _time, pid: _pid, service: _service, name: _name, hostname: _hostname, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const levelName = levelNames[level as number] ?? "";
    const details = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    return escapeForConsole(`${levelName.padEnd(5)} ${String(msg)}${details}`);
  } catch {
    return escapeForConsole(line);
  }
}
