/** Whether a store named on the command line, in RTA_STORE or config is a PostgreSQL one: a URL of that scheme. */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store);
}
