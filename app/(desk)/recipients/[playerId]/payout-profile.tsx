import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import type { Db } from "@/db";
import type { ProfileChangeRow } from "@/db/queries/profile-changes";
import type { CurrentUser } from "@/lib/auth/session";
import { canEditProfiles, reviewVerdict } from "@/lib/profiles/offered";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { loadProfileView, taxFormDrawn } from "@/lib/profiles/profiles";
import { PAYOUT_METHOD_LABELS, taxFormText } from "@/lib/profiles/schemas";
import { PayoutDetailsForm, ReviewChangeForm, TaxFormForm } from "./profile-form";
import { changePayoutDetailsAction, reviewPayoutChangeAction, setTaxFormAction } from "./profile-actions";
import { changedFieldsText } from "@/lib/profiles/mask";

const STATUS_LABELS: Record<
  ProfileChangeRow["status"],
  { label: string; tone: "success" | "warning" | "danger" | "neutral" }
> = {
  applied: { label: "Applied", tone: "success" },
  approved: { label: "Approved", tone: "success" },
  pending: { label: "Awaiting review", tone: "warning" },
  rejected: { label: "Rejected", tone: "danger" },
  superseded: { label: "Replaced", tone: "neutral" },
};

function describeChange(c: ProfileChangeRow): string {
  if (c.kind === "tax_form") {
    const dates = [
      c.taxFormReceivedOn ? `received ${c.taxFormReceivedOn}` : "",
      c.taxFormExpiresOn ? `expires ${c.taxFormExpiresOn}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    return `Tax form ${c.taxForm ?? "none"}${dates ? ` (${dates})` : ""}`;
  }
  const method = c.method ? PAYOUT_METHOD_LABELS[c.method] : "Details";
  const was = c.previousMasked ? ` (was ${c.previousMasked})` : "";
  const changes = changedFieldsText(c.changedFields);
  return `${method}: ${c.detailsMasked ?? ""} in ${c.currency ?? ""}${was}${changes ? `; ${changes}` : ""}`;
}

/** The recipient's payout profile, masked; its forms and the pending change's review for those who may act. */
export async function PayoutProfileSection({
  db,
  gameId,
  playerId,
  user,
}: {
  db: Db;
  gameId: string;
  playerId: number;
  user: CurrentUser;
}) {
  const [{ profile, pending, history }, settings] = await Promise.all([
    loadProfileView(db, { gameId, playerId }),
    readPayoutSettings(db),
  ]);
  const canEdit = canEditProfiles(user.role);
  const verdict = pending ? reviewVerdict(user, pending, settings.twoPersonRule) : null;
  return (
    <Card
      title="Payout profile"
      description="How and in what currency this recipient is paid. Details are stored encrypted and shown masked."
      className="mb-5"
    >
      <KeyValueList
        items={[
          {
            label: "Method",
            value: profile?.method ? (
              PAYOUT_METHOD_LABELS[profile.method]
            ) : (
              <Badge tone="danger">No payout method</Badge>
            ),
          },
          { label: "Details", value: profile?.detailsMasked ?? "None" },
          { label: "Currency", value: profile?.currency ?? "None" },
          {
            label: "Tax form",
            value:
              profile && profile.taxForm !== "none"
                ? taxFormText(profile.taxForm, profile.taxFormReceivedOn ?? "?", profile.taxFormExpiresOn)
                : "None on file",
          },
        ]}
      />
      {/* Always rendered in the same place, so the review's outcome stays on screen once the change is gone. */}
      <section
        aria-labelledby={pending ? "pending-change" : undefined}
        className={pending ? "mt-4 rounded-md border border-line p-3" : "mt-4"}
      >
        {pending ? (
          <>
            <h3 id="pending-change" className="text-sm font-semibold text-ink">
              Change awaiting review
            </h3>
            <p className="mt-1 text-sm">
              {describeChange(pending)}, entered by {pending.enteredByEmail ?? "unknown"} on{" "}
              <DateTime value={pending.enteredAt.toISOString()} />.
            </p>
            {verdict?.allowed ? null : <p className="mt-1 text-sm text-ink-muted">{verdict?.reason}</p>}
          </>
        ) : null}
        <ReviewChangeForm
          action={reviewPayoutChangeAction}
          gameId={gameId}
          playerId={playerId}
          changeId={pending && verdict?.allowed ? pending.id : null}
        />
      </section>
      {canEdit ? (
        <div className="mt-4 grid gap-6 md:grid-cols-2">
          <section aria-labelledby="edit-details">
            <h3 id="edit-details" className="mb-2 text-sm font-semibold text-ink">
              {profile?.method ? "Change payout details" : "Add payout details"}
            </h3>
            <PayoutDetailsForm
              action={changePayoutDetailsAction}
              gameId={gameId}
              playerId={playerId}
              current={{ method: profile?.method ?? null, currency: profile?.currency ?? null }}
              firstDetails={(profile?.detailsVersion ?? 0) === 0}
            />
          </section>
          <section aria-labelledby="edit-tax">
            <h3 id="edit-tax" className="mb-2 text-sm font-semibold text-ink">
              Tax form
            </h3>
            <TaxFormForm
              action={setTaxFormAction}
              gameId={gameId}
              playerId={playerId}
              current={{
                taxForm: profile?.taxForm ?? "none",
                receivedOn: profile?.taxFormReceivedOn ?? null,
                expiresOn: profile?.taxFormExpiresOn ?? null,
                drawn: taxFormDrawn({
                  taxForm: profile?.taxForm ?? "none",
                  taxFormReceivedOn: profile?.taxFormReceivedOn ?? null,
                  taxFormExpiresOn: profile?.taxFormExpiresOn ?? null,
                }),
              }}
            />
          </section>
        </div>
      ) : null}
      <div className="mt-4">
        {history.length === 0 ? (
          <p className="text-sm text-ink-muted">No payout profile changes yet.</p>
        ) : (
          <SimpleTable
            caption="Payout profile history"
            dense
            head={
              <>
                <Th>When</Th>
                <Th>Change</Th>
                <Th>Status</Th>
                <Th>Entered by</Th>
                <Th>Reviewed by</Th>
              </>
            }
          >
            {history.map((c) => {
              const status = STATUS_LABELS[c.status];
              return (
                <Tr key={c.id}>
                  <RowTh>
                    <DateTime value={c.enteredAt.toISOString()} focusable={false} />
                  </RowTh>
                  <Td>{describeChange(c)}</Td>
                  <Td>
                    <Badge tone={status.tone}>{status.label}</Badge>
                  </Td>
                  <Td>
                    {c.enteredByEmail ?? "unknown"} <span className="text-xs text-ink-muted">({c.enteredVia})</span>
                  </Td>
                  <Td>
                    {c.reviewedByEmail ?? ""}
                    {c.reviewNote ? <span className="block text-xs text-ink-muted">{c.reviewNote}</span> : null}
                  </Td>
                </Tr>
              );
            })}
          </SimpleTable>
        )}
      </div>
    </Card>
  );
}
