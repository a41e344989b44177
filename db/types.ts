/** The Database interface: one file per area under db/tables/, composed here. */
import type { AuthTables } from "./tables/auth";
import type { GameTables } from "./tables/games";
import type { RefundTables } from "./tables/refunds";
import type { WebhookTables } from "./tables/webhooks";
import type { SnapshotTables } from "./tables/snapshots";
import type { PayoutTables } from "./tables/payouts";
import type { DisputeTables } from "./tables/disputes";
import type { KeyTables } from "./tables/keys";
import type { PaymentTables } from "./tables/payments";
import type { ProfileTables } from "./tables/profiles";
import type { StatementTables } from "./tables/statements";
import type { AccountingTables } from "./tables/accounting";
import type { JobTables } from "./tables/jobs";

export type { Numeric } from "./tables/columns";
export type * from "./tables/auth";
export type * from "./tables/games";
export type * from "./tables/refunds";
export type * from "./tables/webhooks";
export type * from "./tables/snapshots";
export type * from "./tables/payouts";
export type * from "./tables/disputes";
export type * from "./tables/keys";
export type * from "./tables/payments";
export type * from "./tables/profiles";
export type * from "./tables/statements";
export type * from "./tables/accounting";
export type * from "./tables/jobs";

export type Database = AuthTables &
  GameTables &
  RefundTables &
  WebhookTables &
  SnapshotTables &
  PayoutTables &
  DisputeTables &
  KeyTables &
  PaymentTables &
  ProfileTables &
  StatementTables &
  AccountingTables &
  JobTables;
