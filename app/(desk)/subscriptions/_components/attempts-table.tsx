import { Money } from "@/app/_components/ui/money";
import { TextLink } from "@/app/_components/ui/text-link";
import type { RefundAttempt } from "@/db/queries/refunds";
import { periodHref, refundAttemptHref, subscriptionHref } from "@/lib/lookup/search";
import { AttemptStatusBadge } from "./badges";
import { MaybeTime } from "./maybe";
import { EmptyRow, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";

/** Refund attempts made from Payout Desk, newest first, each linking to its receipt page. */
export function AttemptsTable({
  caption,
  attempts,
  showSubscription = true,
}: {
  caption: string;
  attempts: RefundAttempt[];
  showSubscription?: boolean;
}) {
  const columns = showSubscription ? 8 : 7;
  return (
    <SimpleTable
      nowrapHead
      caption={caption}
      head={
        <>
          <Th>Started</Th>
          {showSubscription ? <Th>Subscription</Th> : null}
          <Th>Period</Th>
          <Th align="right">Amount (USD)</Th>
          <Th>Status</Th>
          <Th>By</Th>
          <Th>Request id</Th>
          <Th>Details</Th>
        </>
      }
    >
      {attempts.length === 0 ? (
        <EmptyRow colSpan={columns}>No refunds made from Payout Desk yet.</EmptyRow>
      ) : (
        attempts.map((a) => (
          <Tr key={a.id}>
            <Td>
              <MaybeTime value={a.createdAt} focusable={false} />
            </Td>
            {showSubscription ? (
              <Td>
                <TextLink href={subscriptionHref(a.subscriptionId)} className="font-mono text-xs">
                  {a.subscriptionId}
                </TextLink>
              </Td>
            ) : null}
            <Td>
              {a.periodId !== null ? (
                <TextLink href={periodHref(a.periodId)}>#{a.periodSeq}</TextLink>
              ) : (
                `#${a.periodSeq}`
              )}
            </Td>
            <Td align="right">
              <Money value={a.amountUsd} />
              {a.isFull ? <span className="ml-1 text-xs text-ink-muted">full</span> : null}
            </Td>
            <Td>
              <AttemptStatusBadge status={a.status} calls={a.calls} />
            </Td>
            <Td>{a.actorEmail ?? "system"}</Td>
            <Td className="font-mono text-xs">{a.clientRequestId}</Td>
            <Td>
              <TextLink href={refundAttemptHref(a.id)}>{a.status === "succeeded" ? "Receipt" : "Open"}</TextLink>
            </Td>
          </Tr>
        ))
      )}
    </SimpleTable>
  );
}
