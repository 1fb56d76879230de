/** JetStream's "wrong last sequence" (10071): a KV compare-and-set (create or update) lost to another writer. */
export function isCasConflict(error: unknown): boolean {
  return (error as { api_error?: { err_code?: number } } | undefined)?.api_error?.err_code === 10071;
}
