import type { Metadata } from "next";
import { Banner } from "@/app/_components/ui/banner";
import { LinkButton } from "@/app/_components/ui/link-button";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { ACCOUNT_MAPPING_PATH } from "@/lib/accounting/accounts";
import { getSnapshot } from "@/db/queries/snapshots";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { EXPORT_QUERY_NAMES, parseExportQuery, webExportRequest } from "@/lib/exports/http";
import { EXPORTS } from "@/lib/exports/kinds";
import { resolveTarget } from "@/lib/exports/run";
import { resolveSelectedGame } from "@/lib/games/games";
import { getPayoutBatch } from "@/lib/payouts/ledger";
import { windowHref, windowLabel } from "@/lib/payouts/window-key";
import type { TimeWindow } from "@/lib/time";

export const metadata: Metadata = { title: "Export not available" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * Where a browser lands when a download is refused (GET /api/exports/… sends it here): the reason, worked out again
 * by the same checks the download ran, and the way back to the window.
 */
export default async function ExportRefusedPage({ searchParams }: Props) {
  const user = await requirePageRole("finance");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const raw = await searchParams;
  const params = new URLSearchParams();
  for (const name of EXPORT_QUERY_NAMES) if (typeof raw[name] === "string") params.set(name, raw[name]);
  const kind = typeof raw.kind === "string" ? raw.kind : "";
  const title = Object.hasOwn(EXPORTS, kind) ? EXPORTS[kind as keyof typeof EXPORTS].title : "Export";

  let reason: string | null = null;
  let window: TimeWindow | null = null;
  try {
    if (!game) throw new AppError("NOT_FOUND", "No game is set up yet: an admin adds one under Settings → Games.");
    const query = parseExportQuery(kind, params);
    const batch = query.batch ? await getPayoutBatch(db, { gameId: game.id, batchId: query.batch }) : null;
    const snapshot = query.snapshot ? await getSnapshot(db, { gameId: game.id, snapshotId: query.snapshot }) : null;
    if (batch) window = { startMs: Date.parse(batch.windowStart), endMs: Date.parse(batch.windowEnd) };
    else if (snapshot) window = snapshot.window;
    await resolveTarget(db, webExportRequest(query, game.id, null));
  } catch (error) {
    // A refusal says why; anything else (the database unreachable) is logged, never shown as it is.
    if (!isAppError(error)) log.error("export refusal page could not work out the reason", { kind, error });
    reason = isAppError(error)
      ? error.message
      : "The export cannot be made, and working out why failed (the error was logged). Try again in a minute.";
  }
  const back = window
    ? { href: windowHref(window), label: `Back to ${windowLabel(window)}` }
    : { href: "/payouts", label: "Back to Payouts" };
  const retry = `/api/exports/${encodeURIComponent(kind)}?${params.toString()}`;

  return (
    <>
      <PageHeader
        title={`${title}: not downloaded`}
        breadcrumbs={[
          { label: "Payouts", href: "/payouts" },
          ...(window ? [{ label: windowLabel(window), href: back.href }] : []),
        ]}
      />
      {reason ? (
        <Banner tone="warning" title="This file cannot be made now" role="alert">
          <p>{reason}</p>
          {reason.includes(ACCOUNT_MAPPING_PATH) ? (
            <p className="mt-1">
              {hasRole(user.role, "admin") ? (
                <a className="underline underline-offset-2" href={ACCOUNT_MAPPING_PATH}>
                  Map the accounts
                </a>
              ) : (
                "An admin maps the accounts in Settings."
              )}
            </p>
          ) : null}
        </Banner>
      ) : (
        <Banner tone="info" title="This file can be downloaded now">
          <p>
            Whatever stopped it has changed since.{" "}
            <a className="underline underline-offset-2" href={retry}>
              Download it
            </a>
            .
          </p>
        </Banner>
      )}
      <div className="mt-4">
        <LinkButton href={back.href}>{back.label}</LinkButton>
      </div>
    </>
  );
}
