import { downloadHref } from "@/lib/games/download-game";
import type { Metadata } from "next";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { PayoutsNav } from "@/app/_components/payouts/payouts-nav";
import { NoGame } from "../../no-game";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { IMPORT_COLUMNS } from "@/lib/profiles/csv";
import { importProfilesAction } from "./actions";
import { ImportProfilesForm } from "./import-form";
import { PendingReviews } from "./pending-reviews";
import { listProfileChanges } from "@/db/queries/profile-changes";

export const metadata: Metadata = { title: "Payout profiles" };

/** Changes waiting for review listed on the page (the newest). */
const REVIEWS_SHOWN = 200;

const EXAMPLE = [
  "player_id,method,currency,paypal_email,iban,bic,bank_country,account_holder,tax_form,tax_form_received_on",
  "100002,paypal,USD,creator@example.com,,,,,W-9,2026-01-15",
  "100003,bank_transfer,EUR,,DE89370400440532013000,COBADEFFXXX,DE,Ada Lovelace,none,",
].join("\n");
const PRE_CLASS =
  "whitespace-pre-wrap break-all rounded-md border border-line bg-subtle p-3 font-mono text-xs text-ink";

export default async function PayoutProfilesPage() {
  const user = await requirePageRole("finance");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const header = (
    <>
      <PageHeader
        title="Payout profiles"
        breadcrumbs={[{ label: "Recipients", href: "/recipients" }]}
        description="Import recipients' payout methods, details and tax forms from a CSV file, or export them (masked)."
      />
      <PayoutsNav current="/recipients" />
    </>
  );
  if (!game)
    return (
      <>
        {header}
        <NoGame role={user.role} />
      </>
    );
  return (
    <>
      {header}
      <Card
        title="Import"
        description={
          "The first details of a recipient apply at once; a change to existing details waits for a finance " +
          "user's review on the recipient's page (another's than whoever entered it, under the two-person rule)."
        }
        className="mb-5"
      >
        <ImportProfilesForm action={importProfilesAction} gameId={game.id} />
      </Card>
      {/* One more than shown, to tell whether more wait. */}
      <PendingReviews
        changes={await listProfileChanges(db, { gameId: game.id, status: "pending", limit: REVIEWS_SHOWN + 1 })}
        shown={REVIEWS_SHOWN}
        twoPersonRule={(await readPayoutSettings(db)).twoPersonRule}
        viewerEmail={user.email}
      />
      <Card title="Export" className="mb-5">
        <p className="mb-3 text-sm">
          The export lists every profile of {game.name} with its details masked (the last four characters, or an email's
          first character and domain): full bank details are never exported.
        </p>
        <a
          href={downloadHref("/api/profiles/export", game.id)}
          download
          className="text-sm font-medium text-accent underline underline-offset-2"
        >
          Download payout profiles (CSV)
        </a>
      </Card>
      <Card title="Columns">
        <p className="mb-2 text-sm">
          Columns, in any order: <span className="font-mono">{Object.keys(IMPORT_COLUMNS).join(", ")}</span>. A blank
          method leaves the details as they are; a blank tax_form leaves the tax form as it is. Methods: paypal
          (paypal_email or paypal_payer_id), wise (wise_email, wise_name), bank_transfer (account_holder, iban, bic,
          bank_country), manual. Currency: an ISO 4217 code. Tax forms: W-9, W-8BEN, W-8BEN-E, none.
        </p>
        <pre className={PRE_CLASS}>
          <code>{EXAMPLE}</code>
        </pre>
      </Card>
    </>
  );
}
