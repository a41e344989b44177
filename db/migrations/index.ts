import type { Migration } from "kysely";
import * as foundation from "./2026_11_22_0900_foundation";
import * as snapshots from "./2026_11_22_1000_snapshots";
import * as refunds from "./2026_11_22_1010_refunds";
import * as webhooks from "./2026_11_22_1020_webhooks";
import * as payouts from "./2026_11_22_1030_payouts";
import * as snapshotDeferredKeys from "./2026_11_22_1035_snapshot_deferred_keys";
import * as refundHardening from "./2026_11_22_1055_refund_hardening";
import * as webhookSecretGrace from "./2026_11_22_1050_webhook_secret_grace";
import * as flagCausesAndDisputes from "./2026_11_23_1400_flag_causes_and_disputes";
import * as keyCheck from "./2026_11_23_1000_key_check";
import * as payoutCarryForwardHold from "./2026_11_23_1600_payout_carry_forward_hold";
import * as refundOutcomeSafety from "./2026_11_23_1100_refund_outcome_safety";
import * as servicePace from "./2026_11_23_1800_service_pace";
import * as auditVia from "./2026_11_24_0900_audit_via";
import * as payoutProfiles from "./2026_11_24_1300_payout_profiles";
import * as paymentFiles from "./2026_11_24_1400_payment_files";
import * as statements from "./2026_11_24_1600_statements";
import * as accounting from "./2026_11_24_1500_accounting";
import * as paymentFlow from "./2026_11_24_1800_payment_flow";
import * as statementUndeliverable from "./2026_11_25_1000_statement_undeliverable";
import * as scheduledRuns from "./2026_11_25_1100_scheduled_runs";
import * as payoutBatchTally from "./2026_11_25_1200_payout_batch_tally";
import * as paceHundredths from "./2026_11_28_1100_pace_hundredths";
import * as snapshotUnpublishedDelete from "./2026_11_28_1300_snapshot_unpublished_delete";
import * as snapshotLineOrderIdx from "./2026_11_29_0900_snapshot_line_order_idx";
import * as batchEmailed from "./2026_11_30_0900_batch_emailed";
import * as snapshotRecipientPlayerIdx from "./2026_11_30_1000_snapshot_recipient_player_idx";
import * as paymentResultPerFiling from "./2026_12_01_0900_payment_result_per_filing";
import * as statementPaidTo from "./2026_12_02_0900_statement_paid_to";
import * as deliveryFailureStatementIdx from "./2026_12_03_0900_delivery_failure_statement_idx";
import * as statementMailboxIdx from "./2026_12_03_1000_statement_mailbox_idx";
import * as statementLinkDownloads from "./2026_12_04_0900_statement_link_downloads";
import * as statementSendFailures from "./2026_12_05_0900_statement_send_failures";
import * as batchRevision from "./2026_12_06_0900_batch_revision";
import * as paymentFileDownloads from "./2026_12_06_1000_payment_file_downloads";
import * as batchEmailRuns from "./2026_12_07_0900_batch_email_runs";
import * as subscriptionChangeHolds from "./2026_12_08_0900_subscription_change_holds";
import * as sendAndMarkIndexes from "./2026_12_08_1000_send_and_mark_indexes";
import * as deliveryClock from "./2026_12_09_0900_delivery_clock";
import * as profileChangeFields from "./2026_12_10_0900_profile_change_fields";
import * as unprocessedChangeIdx from "./2026_12_11_0900_unprocessed_change_idx";
import * as statementIssuer from "./2026_12_11_1000_statement_issuer";
import * as waitingDisputeIdx from "./2026_12_12_0900_waiting_dispute_idx";
import * as negativeBalanceIdx from "./2026_12_13_0900_negative_balance_idx";
import * as taxFormWithdrawnCause from "./2026_12_14_0900_tax_form_withdrawn_cause";
import * as liabilityIdx from "./2026_12_15_0900_liability_idx";
import * as auditFacetsIdx from "./2026_12_15_0930_audit_facets_idx";
import * as paymentReturnUndone from "./2026_12_16_0900_payment_return_undone";
import * as statementReversedBefore from "./2026_12_17_0900_statement_reversed_before";
import * as snapshotLineStatistics from "./2026_12_18_0900_snapshot_line_statistics";
import * as firstDetailsByIdx from "./2026_12_19_0900_first_details_by_idx";

/**
 * Every migration, by name. Listed here rather than read from the folder so that the Next.js server bundle,
 * the CLI and the tests all run the same set (tests/db/migrations.test.ts checks the folder matches).
 */
/** A migration, and whether it needs every instance of the earlier release stopped before it runs. */
export type DeskMigration = Migration & { exclusive?: boolean };

export const MIGRATIONS: Record<string, DeskMigration> = {
  "2026_11_22_0900_foundation": foundation,
  "2026_11_22_1000_snapshots": snapshots,
  "2026_11_22_1010_refunds": refunds,
  "2026_11_22_1020_webhooks": webhooks,
  "2026_11_22_1030_payouts": payouts,
  "2026_11_22_1035_snapshot_deferred_keys": snapshotDeferredKeys,
  "2026_11_22_1050_webhook_secret_grace": webhookSecretGrace,
  "2026_11_22_1055_refund_hardening": refundHardening,
  "2026_11_23_1000_key_check": keyCheck,
  "2026_11_23_1100_refund_outcome_safety": refundOutcomeSafety,
  "2026_11_23_1400_flag_causes_and_disputes": flagCausesAndDisputes,
  "2026_11_23_1600_payout_carry_forward_hold": payoutCarryForwardHold,
  "2026_11_23_1800_service_pace": servicePace,
  "2026_11_24_0900_audit_via": auditVia,
  "2026_11_24_1300_payout_profiles": payoutProfiles,
  "2026_11_24_1400_payment_files": paymentFiles,
  "2026_11_24_1600_statements": statements,
  "2026_11_24_1500_accounting": accounting,
  "2026_11_24_1800_payment_flow": paymentFlow,
  "2026_11_25_1000_statement_undeliverable": statementUndeliverable,
  "2026_11_25_1100_scheduled_runs": scheduledRuns,
  "2026_11_25_1200_payout_batch_tally": payoutBatchTally,
  "2026_11_28_1100_pace_hundredths": paceHundredths,
  "2026_11_28_1300_snapshot_unpublished_delete": snapshotUnpublishedDelete,
  "2026_11_29_0900_snapshot_line_order_idx": snapshotLineOrderIdx,
  "2026_11_30_0900_batch_emailed": batchEmailed,
  "2026_11_30_1000_snapshot_recipient_player_idx": snapshotRecipientPlayerIdx,
  "2026_12_01_0900_payment_result_per_filing": paymentResultPerFiling,
  "2026_12_02_0900_statement_paid_to": statementPaidTo,
  "2026_12_03_0900_delivery_failure_statement_idx": deliveryFailureStatementIdx,
  "2026_12_03_1000_statement_mailbox_idx": statementMailboxIdx,
  "2026_12_04_0900_statement_link_downloads": statementLinkDownloads,
  "2026_12_05_0900_statement_send_failures": statementSendFailures,
  "2026_12_06_0900_batch_revision": batchRevision,
  "2026_12_06_1000_payment_file_downloads": paymentFileDownloads,
  "2026_12_07_0900_batch_email_runs": batchEmailRuns,
  "2026_12_08_0900_subscription_change_holds": subscriptionChangeHolds,
  "2026_12_08_1000_send_and_mark_indexes": sendAndMarkIndexes,
  "2026_12_09_0900_delivery_clock": deliveryClock,
  "2026_12_10_0900_profile_change_fields": profileChangeFields,
  "2026_12_11_0900_unprocessed_change_idx": unprocessedChangeIdx,
  "2026_12_11_1000_statement_issuer": statementIssuer,
  "2026_12_12_0900_waiting_dispute_idx": waitingDisputeIdx,
  "2026_12_13_0900_negative_balance_idx": negativeBalanceIdx,
  "2026_12_14_0900_tax_form_withdrawn_cause": taxFormWithdrawnCause,
  "2026_12_15_0900_liability_idx": liabilityIdx,
  "2026_12_15_0930_audit_facets_idx": auditFacetsIdx,
  "2026_12_16_0900_payment_return_undone": paymentReturnUndone,
  "2026_12_17_0900_statement_reversed_before": statementReversedBefore,
  "2026_12_18_0900_snapshot_line_statistics": snapshotLineStatistics,
  "2026_12_19_0900_first_details_by_idx": firstDetailsByIdx,
};
