/** A page number and size from a request, clamped: pages from 1, sizes from 1 to `max`. */
export function pageOf(
  params: { page?: number; pageSize?: number },
  limits: { size: number; max: number },
): { page: number; pageSize: number; offset: number } {
  const pageSize = Math.min(Math.max(params.pageSize ?? limits.size, 1), limits.max);
  const page = Math.max(params.page ?? 1, 1);
  return { page, pageSize, offset: (page - 1) * pageSize };
}
