/** The row type a query function returns, derived from its query: `RowOf<typeof listThings>`. */
export type RowOf<F extends (...args: never[]) => Promise<readonly unknown[]>> = Awaited<ReturnType<F>>[number];
