import { HeadCells } from "@/app/_components/table/columns";
import { RowTh, SimpleTable, Td, Tr } from "@/app/_components/table/table";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { TextLink } from "@/app/_components/ui/text-link";
import type { ProfileChangeRow } from "@/db/queries/profile-changes";
import { countOf, formatCount } from "@/lib/format";
import { changedFieldsText } from "@/lib/profiles/mask";

/**
 * Changes of payout details waiting for a second finance user, each linked to the recipient's page where it is
 * reviewed (also for a recipient who has earned nothing yet).
 */
export function PendingReviews({
  changes,
  shown,
  twoPersonRule,
  viewerEmail,
}: {
  changes: readonly ProfileChangeRow[];
  shown: number;
  twoPersonRule: boolean;
  /** The person looking: the changes they entered are marked, which under the two-person rule they may not review. */
  viewerEmail: string;
}) {
  const more = changes.length > shown;
  const reviewer = twoPersonRule
    ? "by a finance user other than the one who entered it"
    : "by a finance user (the two-person rule is off: also by the one who entered it)";
  return (
    <Card
      title="Waiting for review"
      description={
        changes.length === 0
          ? "No change of payout details is waiting for review."
          : `${more ? `The newest ${formatCount(shown)} changes` : countOf(changes.length, "change")} of payout ` +
            `details, newest first: each is reviewed on the recipient's page ${reviewer}.` +
            (more ? " More are waiting: review these first." : "")
      }
      flush
      className="mb-5"
    >
      {changes.length > 0 ? (
        <SimpleTable
          caption="Changes of payout details waiting for review"
          frame="none"
          dense
          head={<HeadCells columns={["Recipient", "New details", "Before", "Entered by", "Entered"]} />}
        >
          {changes.slice(0, shown).map((c) => (
            <Tr key={c.id}>
              <RowTh>
                <TextLink href={`/recipients/${c.playerId}`}>
                  <span className="font-mono">#{c.playerId}</span>
                  <span className="sr-only">: review the change</span>
                </TextLink>
              </RowTh>
              <Td className="font-mono text-xs">
                {c.detailsMasked ?? ""}
                {changedFieldsText(c.changedFields) ? (
                  <span className="block font-sans text-ink-muted">{changedFieldsText(c.changedFields)}</span>
                ) : null}
              </Td>
              <Td className="font-mono text-xs">{c.previousMasked ?? "None"}</Td>
              <Td>
                {c.enteredByEmail ?? "no user (a job)"}
                {c.enteredByEmail !== null && c.enteredByEmail === viewerEmail ? (
                  <span className="text-ink-muted"> (you)</span>
                ) : null}
              </Td>
              <Td>
                <DateTime value={c.enteredAt.toISOString()} focusable={false} />
              </Td>
            </Tr>
          ))}
        </SimpleTable>
      ) : null}
    </Card>
  );
}
