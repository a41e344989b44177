import {
  approveAllUnflaggedAction as approveUnflagged,
  approveBatchAction as approveBatch,
  approveStatementsAction as approve,
  carryForwardStatementsAction as carry_forward,
  discardBatchAction as discard,
  holdStatementsAction as hold,
  markPaidAction as mark_paid,
  prepareBatchAction as prepare,
  releaseStatementsAction as release,
  unapproveStatementsAction as unapprove,
} from "../batch-actions";

/** The server action of each statement action, by the name lib/payouts/offered-actions.ts gives it. */
export const STATEMENT_ACTIONS = { approve, unapprove, hold, release, carry_forward, mark_paid };

/** The batch's own actions, for the batch panel. */
export const BATCH_ACTIONS = { prepare, approveUnflagged, approveBatch, markPaid: mark_paid, discard };
