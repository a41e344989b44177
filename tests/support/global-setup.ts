// Global test setup: filled in by the database harness.
export default async function setup(): Promise<() => Promise<void>> {
  return async () => {};
}
