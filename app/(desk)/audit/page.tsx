import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { CsvDownload } from "@/app/_components/forms/spreadsheet-option";
import { Banner } from "@/app/_components/ui/banner";
import { Button } from "@/app/_components/ui/button";
import { buttonClassName } from "@/app/_components/ui/button-styles";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";
import { getDb } from "@/db";
import { auditActorLabel, listAuditFacets, listRefundAttemptOutcomes, searchAuditEntries } from "@/db/queries/audit";
import { TextLink } from "@/app/_components/ui/text-link";
import { formatCount } from "@/lib/format";
import { refundAttemptHref } from "@/lib/lookup/search";
import { requirePageRole } from "@/lib/auth/session";
import { Pager } from "@/app/_components/table/pager";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { ScrollRegion } from "@/app/_components/ui/scroll-region";
import { AUDIT_PAGE_SIZE, auditHref, auditQueryOf, parseAuditFilter } from "./filters";

export const metadata: Metadata = { title: "Audit log" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** A refund attempt's status now, in the words the refund pages use. */
const ATTEMPT_OUTCOMES: Record<string, string> = {
  pending: "still pending",
  succeeded: "refunded",
  failed: "refused, nothing moved",
  needs_attention: "needs manual attention",
  resolved: "settled by hand",
};

function actionFamilies(actions: string[]): string[] {
  return [...new Set(actions.filter((a) => a.includes(".")).map((a) => `${a.split(".")[0]}.`))];
}

export default async function AuditPage({ searchParams }: Props) {
  await requirePageRole("viewer");
  const db = getDb();
  const filter = parseAuditFilter(await searchParams);
  const offset = (filter.page - 1) * AUDIT_PAGE_SIZE;
  const [facets, result] = await Promise.all([
    listAuditFacets(db),
    searchAuditEntries(db, auditQueryOf(filter), { offset, limit: AUDIT_PAGE_SIZE }),
  ]);
  const outcomes = await listRefundAttemptOutcomes(
    db,
    result.rows.flatMap((e) =>
      e.action === "refund.request" && e.gameId && e.idempotencyKey
        ? [{ gameId: e.gameId, clientRequestId: e.idempotencyKey }]
        : [],
    ),
  );
  const ledTo = (e: (typeof result.rows)[number]) =>
    e.action === "refund.request" && e.gameId && e.idempotencyKey
      ? (outcomes.get(`${e.gameId}|${e.idempotencyKey}`) ?? null)
      : null;
  const narrowed = Boolean(
    filter.action ||
      filter.actor ||
      filter.game ||
      filter.target ||
      filter.outcome ||
      filter.key ||
      filter.from.text ||
      filter.to.text,
  );
  const families = actionFamilies(facets.actions);

  return (
    <>
      <PageHeader
        title="Audit log"
        description={
          "Every change made in Payout Desk, newest first: who, when, on which game and target, with the " +
          "idempotency key and the outcome. Entries cannot be edited or deleted."
        }
        actions={
          filter.from.invalid || filter.to.invalid ? null : (
            <CsvDownload href={auditHref(filter, 1).replace(/^\/audit/, "/api/audit/export")}>
              Download CSV{narrowed ? " (filtered)" : ""}
            </CsvDownload>
          )
        }
      />
      <form
        method="get"
        action="/audit"
        aria-label="Filter the audit log"
        className="mb-4 grid gap-3 rounded-lg border border-line bg-surface p-3 sm:grid-cols-2 lg:grid-cols-4"
      >
        <FilterField label="Action" id="audit-action">
          <Select id="audit-action" name="action" defaultValue={filter.action ?? ""} placeholder="All actions">
            {families.map((f) => (
              <option key={f} value={f}>{`${f}* (all)`}</option>
            ))}
            {facets.actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </Select>
        </FilterField>
        <FilterField label="Outcome" id="audit-outcome">
          <Select
            id="audit-outcome"
            name="outcome"
            defaultValue={filter.outcome ?? ""}
            placeholder="All outcomes"
            options={facets.outcomes.map((o) => ({ value: o, label: o }))}
          />
        </FilterField>
        <FilterField label="Game" id="audit-game">
          <Select
            id="audit-game"
            name="game"
            defaultValue={filter.game ?? ""}
            placeholder="All games"
            options={facets.games.map((g) => ({ value: g, label: g }))}
          />
        </FilterField>
        <FilterField label="Actor (email contains, system or command line)" id="audit-actor">
          <Input id="audit-actor" name="actor" defaultValue={filter.actor ?? ""} autoComplete="off" />
        </FilterField>
        <FilterField label="Target contains" id="audit-target">
          <Input
            id="audit-target"
            name="target"
            defaultValue={filter.target ?? ""}
            autoComplete="off"
            placeholder="SUB_…, game id, setting"
          />
        </FilterField>
        <FilterField label="Idempotency key" id="audit-key">
          <Input id="audit-key" name="key" defaultValue={filter.key ?? ""} autoComplete="off" className="font-mono" />
        </FilterField>
        <FilterField
          label="From (UTC, inclusive)"
          id="audit-from"
          error={filter.from.invalid ? "must be a date such as 2026-11-01 or 2026-11-01T09:00:00Z" : null}
        >
          <Input
            id="audit-from"
            name="from"
            defaultValue={filter.from.text ?? ""}
            autoComplete="off"
            placeholder="2026-11-01"
            aria-invalid={filter.from.invalid || undefined}
            aria-describedby={filter.from.invalid ? "audit-from-error" : undefined}
          />
        </FilterField>
        <FilterField
          label="To (UTC, exclusive)"
          id="audit-to"
          error={filter.to.invalid ? "must be a date such as 2026-12-01 or 2026-12-01T00:00:00Z" : null}
        >
          <Input
            id="audit-to"
            name="to"
            defaultValue={filter.to.text ?? ""}
            autoComplete="off"
            placeholder="2026-12-01"
            aria-invalid={filter.to.invalid || undefined}
            aria-describedby={filter.to.invalid ? "audit-to-error" : undefined}
          />
        </FilterField>
        <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-4">
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
          {narrowed ? (
            <Link href="/audit" className={buttonClassName({ variant: "ghost" })}>
              Clear filters
            </Link>
          ) : null}
        </div>
      </form>
      {filter.from.invalid || filter.to.invalid ? (
        <Banner tone="warning" role="status" className="mb-4">
          A time filter could not be read and is not applied; correct it to download the log.
        </Banner>
      ) : null}
      {result.newer > 0 ? (
        <Banner tone="info" role="status" className="mb-4">
          {result.newer === 1 ? "1 newer entry" : `${formatCount(result.newer)} newer entries`} since this list was
          opened; these pages stay as they were. <TextLink href={auditHref(filter, 1)}>Show the newest</TextLink>
        </Banner>
      ) : null}
      {result.total === 0 ? (
        <EmptyState title={narrowed ? "No entries match" : "Nothing recorded yet"}>
          {narrowed
            ? "Widen the filters or clear them."
            : "Changes to users, games, refunds and payouts will show here."}
        </EmptyState>
      ) : (
        <SimpleTable
          caption="Audit log entries, newest first"
          head={
            <>
              <Th>Time</Th>
              <Th>Actor</Th>
              <Th>Action</Th>
              <Th>Game</Th>
              <Th>Target</Th>
              <Th>Idempotency key</Th>
              <Th>Outcome</Th>
              <Th>Detail</Th>
            </>
          }
          footer={
            <Pager
              label="Audit log pages"
              offset={offset}
              limit={AUDIT_PAGE_SIZE}
              total={result.total}
              pageHref={(page) => auditHref(filter, page, result.upToId)}
            />
          }
        >
          {result.rows.map((e) => (
            <Tr key={e.id}>
              <Td className="whitespace-nowrap">
                <DateTime value={e.at.toISOString()} seconds focusable={false} />
              </Td>
              <Td>{auditActorLabel(e)}</Td>
              <Td className="font-mono text-xs">{e.action}</Td>
              <Td className="font-mono text-xs">{e.gameId ?? ""}</Td>
              <Td>{e.target ?? ""}</Td>
              <Td className="max-w-48 font-mono text-xs break-all">{e.idempotencyKey ?? ""}</Td>
              <Td>
                {e.outcome}
                {ledTo(e) ? (
                  <span className="block text-xs text-ink-muted">
                    led to:{" "}
                    <TextLink href={refundAttemptHref(ledTo(e)?.attemptId ?? "")}>
                      {ATTEMPT_OUTCOMES[ledTo(e)?.status ?? ""] ?? ledTo(e)?.status}
                    </TextLink>
                  </span>
                ) : null}
              </Td>
              <Td>
                {Object.keys(e.detail).length > 0 ? (
                  <details>
                    <summary className="cursor-pointer text-accent">
                      Show<span className="sr-only"> the detail of {e.action}</span>
                    </summary>
                    <ScrollRegion
                      label={`Detail of ${e.action}`}
                      className="mt-1 max-w-md overflow-auto rounded bg-subtle p-2"
                    >
                      <pre className="font-mono text-xs">{JSON.stringify(e.detail, null, 2)}</pre>
                    </ScrollRegion>
                  </details>
                ) : null}
              </Td>
            </Tr>
          ))}
        </SimpleTable>
      )}
    </>
  );
}

function FilterField({
  label,
  id,
  error,
  children,
}: {
  label: string;
  id: string;
  error?: string | null;
  children: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-ink-muted">
        {label}
      </label>
      {children}
      {error ? <p id={`${id}-error`} className="text-xs font-medium text-danger">{`${label}: ${error}`}</p> : null}
    </div>
  );
}
