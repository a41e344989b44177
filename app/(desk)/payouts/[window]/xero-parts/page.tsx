import type { Metadata } from "next";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { LinkButton } from "@/app/_components/ui/link-button";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Panel } from "../panel";
import { requirePageRole } from "@/lib/auth/session";
import { getLiveBatchId } from "@/db/queries/payouts";
import { countOf } from "@/lib/format";
import { getPayoutBatch } from "@/lib/payouts/ledger";
import { parseWindowKey, windowHref, windowLabel } from "@/lib/payouts/window-key";
import { ExportLinks } from "../export-links";
import { exportUnavailable, xeroPartLinks } from "../exports-list";
import { loadWindowRequest } from "../load";

type Props = { params: Promise<{ window: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const window = parseWindowKey((await params).window);
  return { title: window ? `Xero parts · ${windowLabel(window)}` : "Xero parts" };
}

/**
 * A large batch's Xero manual journals, a link per part of at most 300 lines. Listing them reads every posting of
 * the batch, so the window page links here rather than listing them itself.
 */
export default async function XeroPartsPage({ params }: Props) {
  await requirePageRole("finance");
  const { db, game, window } = await loadWindowRequest((await params).window);
  const label = windowLabel(window);
  const back = windowHref(window);
  const crumbs = [
    { label: "Payouts", href: "/payouts" },
    { label, href: back },
  ];
  const batchId = game ? await getLiveBatchId(db, { gameId: game.id, window }) : null;
  const batch = game && batchId ? await getPayoutBatch(db, { gameId: game.id, batchId }) : null;
  const reason =
    game && batch
      ? await exportUnavailable(db, "journal-xero", { gameId: game.id, batch })
      : "This window has no payout batch: prepare one from the window's payout table.";
  const links = game && batch && reason === null ? await xeroPartLinks(db, { gameId: game.id, batchId: batch.id }) : [];

  return (
    <>
      <PageHeader title={`Xero manual journals · ${label}`} breadcrumbs={crumbs} />
      {reason ? (
        <EmptyState title="No Xero file can be made now">{reason}</EmptyState>
      ) : (
        <Panel id="xero-parts" title="Parts" summary={countOf(links.length, "file")} open>
          <p className="mb-3 text-xs text-ink-muted">
            Xero imports at most 300 lines a file: import every part (Accounting → Manual Journals → Import). Each link
            is for the parts as listed now; if a payment or a return is recorded meanwhile, a part is refused and this
            page lists them again.{" "}
            <code>npm run desk -- export --batch {batch?.id} --kind journal-xero --out FILE</code> writes every part at
            once.
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
