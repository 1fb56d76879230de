/**
 * Looks a key up as an own property only, so untrusted names such as `constructor` or `__proto__`
 * never reach the prototype chain.
 */
export function getOwn<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}
