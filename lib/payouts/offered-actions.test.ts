import { describe, expect, it } from "vitest";
import type { PayoutBatchStatus, PayoutStatementState } from "@/db/types";
import { ROLES } from "@/lib/auth/roles";
import {
  BATCH_ACTIONS,
  type BatchContext,
  batchVerdict,
  offeredStatementActions,
  offersForSelection,
  OWN_FIRST_DETAILS_RELEASE,
  STATEMENT_ACTIONS,
  type StatementFacts,
  statementVerdict,
} from "./offered-actions";

const BATCH_STATUSES: PayoutBatchStatus[] = ["draft", "approved", "paid", "discarded"];
const STATES: PayoutStatementState[] = ["draft", "approved", "held", "paid", "carried"];

function context(status: PayoutBatchStatus, over: Partial<BatchContext> = {}): BatchContext {
  return {
    role: "finance",
    actorId: "approver",
    status,
    twoPersonRule: true,
    preparedById: "preparer",
    approvedById: status === "draft" ? null : "approver",
    ...over,
  };
}

/** The allowed actions of every (batch status, statement state) pair, for someone other than the preparer. */
function allowedTable(over: Partial<BatchContext> = {}, openFlags = 0): Record<string, string> {
  const table: Record<string, string> = {};
  for (const status of BATCH_STATUSES) {
    for (const state of STATES) {
      const allowed = STATEMENT_ACTIONS.filter(
        (a) => statementVerdict(a, context(status, over), { state, openFlags }).kind === "allowed",
      );
      table[`${status}/${state}`] = allowed.join(" ");
    }
  }
  return table;
}

describe("statement actions by batch status and statement state", () => {
  it("offers exactly these actions to a finance user who did not prepare the batch", () => {
    expect(allowedTable()).toEqual({
      "draft/draft": "approve hold",
      "draft/approved": "unapprove hold",
      "draft/held": "release",
      "draft/paid": "",
      "draft/carried": "",
      "approved/draft": "",
      "approved/approved": "hold mark_paid",
      "approved/held": "release carry_forward",
      "approved/paid": "",
      "approved/carried": "",
      "paid/draft": "",
      "paid/approved": "hold mark_paid",
      "paid/held": "release carry_forward",
      "paid/paid": "",
      "paid/carried": "",
      "discarded/draft": "",
      "discarded/approved": "",
      "discarded/held": "",
      "discarded/paid": "",
      "discarded/carried": "",
    });
  });

  it("never leaves a held statement without an allowed way out once its batch is approved or paid", () => {
    for (const status of ["draft", "approved", "paid"] as const) {
      for (const actorId of ["preparer", "approver"]) {
        for (const openFlags of [0, 2]) {
          const offered = STATEMENT_ACTIONS.filter(
            (a) => statementVerdict(a, context(status, { actorId }), { state: "held", openFlags }).kind === "allowed",
          );
          expect(offered.length, `${status} ${actorId} flags=${openFlags}`).toBeGreaterThan(0);
        }
      }
    }
  });

  it("blocks release with open flags in an approved or paid batch and says to carry the balance forward", () => {
    const paid = statementVerdict("release", context("paid"), { state: "held", openFlags: 1 });
    expect(paid).toMatchObject({ kind: "blocked", code: "open_flags" });
    expect(paid.kind === "blocked" && paid.reason).toMatch(/carry the balance forward/);
    expect(statementVerdict("carry_forward", context("paid"), { state: "held", openFlags: 1 }).kind).toBe("allowed");
    expect(statementVerdict("release", context("draft"), { state: "held", openFlags: 1 }).kind).toBe("allowed");
    expect(statementVerdict("approve", context("draft"), { state: "draft", openFlags: 1 })).toMatchObject({
      kind: "blocked",
      code: "open_flags",
    });
  });

  it("names the window's flags when only they keep a statement from approval, not the recipient's", () => {
    const approve = (facts: { openFlags: number; windowFlags: number }) =>
      statementVerdict("approve", context("draft"), { state: "draft", ...facts });
    expect(approve({ openFlags: 1, windowFlags: 1 })).toEqual({
      kind: "blocked",
      code: "open_flags",
      reason: "A flag on this window is open: find out why, then override it on the window's page.",
    });
    expect(approve({ openFlags: 2, windowFlags: 2 })).toMatchObject({ reason: /^2 flags on this window are open/ });
    expect(approve({ openFlags: 2, windowFlags: 1 })).toMatchObject({ reason: /^Open flags: override them/ });
  });

  it("blocks the preparer from releasing a hold of an approved batch under the two-person rule, and only then", () => {
    for (const status of ["approved", "paid"] as const) {
      expect(
        statementVerdict("release", context(status, { actorId: "preparer" }), { state: "held", openFlags: 0 }),
      ).toMatchObject({ kind: "blocked", code: "two_person_rule" });
      expect(
        statementVerdict("release", context(status, { actorId: "preparer", twoPersonRule: false }), {
          state: "held",
          openFlags: 0,
        }).kind,
      ).toBe("allowed");
      expect(
        statementVerdict("carry_forward", context(status, { actorId: "preparer" }), { state: "held", openFlags: 0 })
          .kind,
      ).toBe("allowed");
    }
    expect(
      statementVerdict("release", context("draft", { actorId: "preparer" }), { state: "held", openFlags: 0 }).kind,
    ).toBe("allowed");
  });

  it("never holds a negative balance: it carries forward, so flags on it are overridden instead", () => {
    const owing = { state: "draft" as const, openFlags: 1, availableUsd: "-80.00" };
    expect(statementVerdict("hold", context("draft"), owing)).toEqual({
      kind: "not_applicable",
      reason: "The recipient owes this balance: it is not held but carried forward against later payouts.",
    });
    expect(statementVerdict("hold", context("approved"), { ...owing, state: "approved" }).kind).toBe("not_applicable");
    expect(statementVerdict("approve", context("draft"), owing)).toMatchObject({
      kind: "blocked",
      reason: "Open flags: override them with a reason (a negative balance is not held: it carries forward).",
    });
    // Nothing to pay but nothing owed (under the minimum payout) may still be held; so may a held one be released.
    expect(statementVerdict("hold", context("draft"), { ...owing, availableUsd: "0.40" }).kind).toBe("allowed");
    expect(statementVerdict("release", context("draft"), { ...owing, state: "held" }).kind).toBe("allowed");
  });

  it("offers nothing to roles below finance", () => {
    for (const role of ROLES.filter((r) => r !== "finance" && r !== "admin")) {
      expect(allowedTable({ role })).toEqual(Object.fromEntries(Object.keys(allowedTable()).map((k) => [k, ""])));
      for (const status of BATCH_STATUSES)
        for (const action of BATCH_ACTIONS)
          expect(
            batchVerdict(action, context(status, { role }), { draft: 1, approved: 1, held: 0, total: 2 }).kind,
          ).toBe("not_applicable");
    }
    expect(allowedTable({ role: "admin" })).toEqual(allowedTable());
  });

  it("lists blocked actions with their reasons next to the allowed ones, and hides those that do not apply", () => {
    const offered = offeredStatementActions(context("paid", { actorId: "preparer" }), { state: "held", openFlags: 0 });
    expect(offered.map((o) => `${o.action}:${o.verdict.kind}`)).toEqual(["release:blocked", "carry_forward:allowed"]);
  });

  it("blocks recording a statement paid by hand while a flag raised since approval stops its payment", () => {
    const markPaid = (facts: StatementFacts) => statementVerdict("mark_paid", context("approved"), facts);
    expect(markPaid({ state: "approved", openFlags: 1, stopsPayment: ["Disputed renewal"] })).toMatchObject({
      kind: "blocked",
      code: "open_flags",
      reason: expect.stringMatching(/^A flag raised since approval stops its payment \(Disputed renewal\): override/),
    });
    // A payment that came back is paid again by hand: its flag stops files only.
    expect(markPaid({ state: "returned", openFlags: 1, stopsPayment: [] })).toEqual({ kind: "allowed" });
    expect(markPaid({ state: "approved", openFlags: 0 })).toEqual({ kind: "allowed" });
  });

  it("offers a bulk action when it applies to some selected statement, else says why it is blocked", () => {
    const names = (
      status: PayoutBatchStatus,
      facts: { state: PayoutStatementState; openFlags: number }[],
      over: Partial<BatchContext> = {},
    ) => offersForSelection(context(status, over), facts).map((o) => `${o.action}:${o.verdict.kind}`);
    const mixed = (["draft", "approved", "held"] as const).map((state) => ({ state, openFlags: 0 }));
    expect(names("draft", mixed)).toEqual(["approve:allowed", "unapprove:allowed", "hold:allowed", "release:allowed"]);
    expect(names("approved", mixed)).toEqual([
      "hold:allowed",
      "release:allowed",
      "carry_forward:allowed",
      "mark_paid:allowed",
    ]);
    expect(names("paid", mixed, { actorId: "preparer" })).toEqual([
      "hold:allowed",
      "release:blocked",
      "carry_forward:allowed",
      "mark_paid:allowed",
    ]);
    // Held statements with open flags in a paid batch: only carrying them forward can succeed.
    expect(names("paid", [{ state: "held", openFlags: 1 }])).toEqual(["release:blocked", "carry_forward:allowed"]);
    expect(
      names("paid", [
        { state: "held", openFlags: 1 },
        { state: "held", openFlags: 0 },
      ]),
    ).toEqual(["release:allowed", "carry_forward:allowed"]);
    expect(
      names("paid", [
        { state: "paid", openFlags: 0 },
        { state: "carried", openFlags: 0 },
      ]),
    ).toEqual([]);
    expect(names("discarded", mixed)).toEqual([]);
  });
});

describe("batch actions", () => {
  const counts = { draft: 0, approved: 3, held: 1, total: 4 };

  it("offers each batch action in the states it applies to", () => {
    const table: Record<string, string> = {};
    for (const status of BATCH_STATUSES)
      table[status] = BATCH_ACTIONS.filter((a) => batchVerdict(a, context(status), counts).kind === "allowed").join(
        " ",
      );
    expect(table).toEqual({
      draft: "approve_batch discard",
      approved: "mark_all_paid",
      paid: "mark_all_paid",
      discarded: "",
    });
    expect(batchVerdict("approve_unflagged", context("draft"), { ...counts, draft: 2 }).kind).toBe("allowed");
  });

  it("blocks approval for the preparer, for drafts left, and for a batch of holds only", () => {
    expect(batchVerdict("approve_batch", context("draft"), counts).kind).toBe("allowed");
    expect(batchVerdict("approve_batch", context("draft", { actorId: "preparer" }), counts)).toMatchObject({
      kind: "blocked",
      code: "two_person_rule",
    });
    expect(
      batchVerdict("approve_batch", context("draft", { actorId: "preparer", twoPersonRule: false }), counts).kind,
    ).toBe("allowed");
    expect(batchVerdict("approve_batch", context("draft"), { ...counts, draft: 2 })).toMatchObject({
      kind: "blocked",
      reason: expect.stringMatching(/2 statements are still in draft/),
    });
    expect(batchVerdict("approve_batch", context("draft"), { draft: 0, approved: 0, held: 2, total: 2 })).toMatchObject(
      { kind: "blocked", code: "incomplete" },
    );
    expect(batchVerdict("mark_all_paid", context("paid"), { ...counts, approved: 0 }).kind).toBe("not_applicable");
  });

  it("offers no approval while a flag on the window stands open on every statement, and says why", () => {
    const one =
      "A flag on this window blocks the approval of its statements: find out why, then override it on this page.";
    for (const action of ["approve_unflagged", "approve_batch"] as const)
      expect(batchVerdict(action, context("draft"), { ...counts, draft: 366, openWindowFlags: 1 })).toEqual({
        kind: "blocked",
        code: "open_flags",
        reason: one,
      });
    // Approved statements carry it too: approving the batch would be refused.
    expect(batchVerdict("approve_batch", context("draft"), { ...counts, openWindowFlags: 2 })).toMatchObject({
      kind: "blocked",
      reason: expect.stringMatching(/^2 flags on this window block .* override them on this page\.$/),
    });
    expect(batchVerdict("approve_unflagged", context("draft"), { ...counts, openWindowFlags: 1 }).kind).toBe(
      "not_applicable",
    );
  });

  it("offers no approval of the unflagged statements when every draft has a flag of its own", () => {
    expect(
      batchVerdict("approve_unflagged", context("draft"), { ...counts, draft: 3, draftsAllFlagged: true }),
    ).toEqual({
      kind: "blocked",
      code: "open_flags",
      reason:
        "Every statement in draft has an open flag: override the flags on the recipients' rows, or hold their " +
        "payouts (a balance the recipient owes is not held: override its flags, and it carries forward).",
    });
    expect(
      batchVerdict("approve_unflagged", context("draft"), { ...counts, draft: 1, draftsAllFlagged: true }),
    ).toMatchObject({ reason: expect.stringMatching(/^The statement in draft has an open flag: /) });
    expect(
      batchVerdict("approve_unflagged", context("draft"), { ...counts, draft: 3, draftsAllFlagged: false }).kind,
    ).toBe("allowed");
  });

  it("offers no batch approval while an approved statement has a flag raised since, and names its recipient", () => {
    expect(batchVerdict("approve_batch", context("draft"), { ...counts, approvedFlagged: [12] })).toEqual({
      kind: "blocked",
      code: "open_flags",
      reason:
        "An approved statement has an open flag raised since it was approved (recipient 12): override it with a " +
        "reason or hold the payout first (a balance the recipient owes is not held: override its flags, and it " +
        "carries forward).",
    });
    expect(
      batchVerdict("approve_batch", context("draft"), { ...counts, approvedFlagged: [12, 15, 20, 31] }),
    ).toMatchObject({ reason: expect.stringMatching(/^4 approved statements have .*\(recipient 12, 15, 20 …\)/) });
    expect(batchVerdict("approve_batch", context("draft"), { ...counts, approvedFlagged: [] }).kind).toBe("allowed");
  });

  it("offers no batch approval, under the two-person rule, to whoever entered first payout details it pays", () => {
    expect(batchVerdict("approve_batch", context("draft"), { ...counts, ownFirstDetails: [12] })).toEqual({
      kind: "blocked",
      code: "two_person_rule",
      reason:
        "Two-person rule: you entered the first payout details of recipient 12, which no payment has gone to yet, " +
        "so another finance user approves this batch (or hold that payout).",
    });
    expect(
      batchVerdict("approve_batch", context("draft"), { ...counts, ownFirstDetails: [12, 15, 20, 31] }),
    ).toMatchObject({ reason: expect.stringMatching(/of recipients 12, 15, 20 …, .*\(or hold those payouts\)\.$/) });
    const off = context("draft", { twoPersonRule: false });
    expect(batchVerdict("approve_batch", off, { ...counts, ownFirstDetails: [12] }).kind).toBe("allowed");
    // Held so that the batch could be approved: once it is, not released by the same person.
    const held = { state: "held" as const, openFlags: 0, ownFirstDetails: true };
    expect(statementVerdict("release", context("approved"), held)).toEqual({
      kind: "blocked",
      code: "two_person_rule",
      reason: OWN_FIRST_DETAILS_RELEASE,
    });
    expect(statementVerdict("release", context("draft"), held).kind).toBe("allowed");
    expect(statementVerdict("release", context("approved", { twoPersonRule: false }), held).kind).toBe("allowed");
  });

  it("offers no recording of the approved statements paid while a flag stops one's payment, and names it", () => {
    for (const status of ["approved", "paid"] as const) {
      expect(batchVerdict("mark_all_paid", context(status), { ...counts, approvedBarred: [12] })).toEqual({
        kind: "blocked",
        code: "open_flags",
        reason:
          "An approved statement has a flag raised since approval that stops its payment (recipient 12): resolve " +
          "or override it with a reason on the recipient's row, or hold the payout; then record the payment.",
      });
      expect(batchVerdict("mark_all_paid", context(status), { ...counts, approvedBarred: [] }).kind).toBe("allowed");
    }
    expect(
      batchVerdict("mark_all_paid", context("approved"), { ...counts, approvedBarred: [12, 15, 20, 31] }),
    ).toMatchObject({ reason: expect.stringMatching(/^Approved statements have flags .*\(recipient 12, 15, 20 …\)/) });
  });
});
