/**
 * Response bodies of the service routes Payout Desk uses (../shared/spec/service-api.md).
 *
 * Objects strip unknown fields (zod's default; nothing here is strict), so a field the service adds later never breaks
 * a parse. Fields the spec lists are required; "or null" is `.nullable()`; fields the spec marks "not shown", or that
 * appear only in some cases, are `.optional()`. Amounts stay decimal strings. Webhook data keeps unknown fields
 * (`looseObject`) because the event is stored as received.
 */

export {
  formatIssues,
  type Pagination,
  paginationSchema,
  percentSchema,
  timestampSchema,
} from "./schema-parts";
export * from "./reporting-schemas";
export * from "./subscription-schemas";
export * from "./webhook-schemas";
