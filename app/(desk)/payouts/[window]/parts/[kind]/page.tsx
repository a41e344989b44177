import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { LinkButton } from "@/app/_components/ui/link-button";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Panel } from "../../panel";
import { requirePageRole } from "@/lib/auth/session";
import { countOf } from "@/lib/format";
import { getLiveBatch } from "@/lib/payouts/ledger";
import { parseWindowKey, windowHref, windowLabel } from "@/lib/payouts/window-key";
import { ExportLinks } from "../../export-links";
import { exportUnavailable, isPartedKind, PARTED_FILES, type PartedKind, partLinks } from "../../exports-list";
import { loadWindowRequest } from "../../load";

type Props = { params: Promise<{ window: string; kind: string }> };

/** Where each ledger's importer is, and how many lines a part holds. */
const IMPORTER: Record<PartedKind, { limit: string; where: string; short: string }> = {
  "journal-xero": { limit: "at most 300 lines", where: "Accounting → Manual Journals → Import", short: "Xero" },
  "journal-quickbooks": {
    limit: "at most 1,000 rows (the header among them)",
    where: "Settings → Import data → Journal entries",
    short: "QuickBooks",
  },
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { window: key, kind } = await params;
  const window = parseWindowKey(key);
  const what = isPartedKind(kind) ? `${IMPORTER[kind].short} parts` : "Parts";
  return { title: window ? `${what} · ${windowLabel(window)}` : what };
}

/**
 * A large batch's Xero manual journals or QuickBooks Online journal entries, a link per part of what the ledger's
 * importer takes in one file. Listing them reads every posting of the batch, so the window page links here rather
 * than listing them itself.
 */
export default async function JournalPartsPage({ params }: Props) {
  await requirePageRole("finance");
  const { window: key, kind } = await params;
  if (!isPartedKind(kind)) notFound();
  const { db, game, window } = await loadWindowRequest(key);
  const label = windowLabel(window);
  const back = windowHref(window);
  const crumbs = [
    { label: "Payouts", href: "/payouts" },
    { label, href: back },
  ];
  const batch = game ? await getLiveBatch(db, { gameId: game.id, window }) : null;
  const reason =
    game && batch
      ? await exportUnavailable(db, kind, { gameId: game.id, batch })
      : "This window has no payout batch: prepare one from the window's payout table.";
  const links =
    game && batch && reason === null ? await partLinks(db, kind, { gameId: game.id, batchId: batch.id }) : [];
  const importer = IMPORTER[kind];

  return (
    <>
      <PageHeader title={`${PARTED_FILES[kind].label} · ${label}`} breadcrumbs={crumbs} />
      {reason ? (
        <EmptyState title={`No ${importer.short} file can be made now`}>{reason}</EmptyState>
      ) : (
        <Panel id="parts" title="Parts" summary={countOf(links.length, "file")} open>
          <p className="mb-3 text-xs text-ink-muted">
            {importer.short} imports {importer.limit} a file: import every part ({importer.where}). Each link is for the
            parts as listed now; if a payment or a return is recorded meanwhile, or the accounts are mapped again, a
            part is refused and this page lists them again.{" "}
            <code>
              npm run desk -- export --batch {batch?.id} --kind {kind} --out FILE
            </code>{" "}
            writes every part at once.
          </p>
          <ExportLinks exports={links} />
        </Panel>
      )}
      <div className="mt-4">
        <LinkButton href={back}>Back to {label}</LinkButton>
      </div>
    </>
  );
}
