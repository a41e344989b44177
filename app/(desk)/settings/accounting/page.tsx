import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { ACCOUNT_LABELS, ACCOUNTING_ACCOUNTS, readAccountMap } from "@/lib/accounting/accounts";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { NoGame } from "../../no-game";
import {
  QUICKBOOKS_DATE_ORDER_LABELS,
  QUICKBOOKS_DATE_ORDERS,
  readQuickbooksDateOrder,
} from "@/lib/accounting/date-order";
import { AccountForm, DateOrderForm } from "./account-form";
import { mapAccountAction, setQuickbooksDateOrderAction } from "./actions";

export const metadata: Metadata = { title: "Accounting settings" };

export default async function AccountingSettingsPage() {
  const user = await requirePageRole("admin");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const crumbs = [{ label: "Settings", href: "/settings" }];
  if (!game) {
    return (
      <>
        <PageHeader title="Accounting" breadcrumbs={crumbs} />
        <NoGame role={user.role} />
      </>
    );
  }
  const [map, dateOrder] = await Promise.all([
    readAccountMap(db, { gameId: game.id }),
    readQuickbooksDateOrder(db, game.id),
  ]);
  const unmapped = ACCOUNTING_ACCOUNTS.filter((a) => !map[a]);
  // Xero needs a tax rate name on every account a journal posts to; QuickBooks Online does not.
  const noTaxRate = ACCOUNTING_ACCOUNTS.filter((a) => map[a] && !map[a]?.taxRate);
  return (
    <>
      <PageHeader
        title="Accounting"
        breadcrumbs={crumbs}
        description={
          `Where ${game.name}'s journal posts in your ledger: each of Payout Desk's accounts mapped to your chart of ` +
          "accounts. The Xero and QuickBooks Online files use these; changes are recorded in the audit log."
        }
        meta={
          unmapped.length > 0 ? (
            <Badge tone="warning">{unmapped.length} not mapped</Badge>
          ) : noTaxRate.length > 0 ? (
            <Badge tone="warning">All mapped; {noTaxRate.length} without a tax rate (Xero needs one)</Badge>
          ) : (
            <Badge tone="success">All mapped</Badge>
          )
        }
      />
      <div className="flex flex-col gap-4">
        {ACCOUNTING_ACCOUNTS.map((account) => (
          <Card key={account} title={ACCOUNT_LABELS[account].label}>
            <p className="mb-3 text-sm text-ink-muted">
              {ACCOUNT_LABELS[account].meaning}{" "}
              {map[account] ? (
                <>
                  Now: <strong className="text-ink">{map[account]?.code}</strong>
                  {map[account]?.taxRate ? `, tax rate ${map[account]?.taxRate}` : ", no tax rate"}.
                </>
              ) : (
                <strong className="text-ink">Not mapped yet.</strong>
              )}
            </p>
            <AccountForm
              action={mapAccountAction}
              gameId={game.id}
              account={account}
              label={ACCOUNT_LABELS[account].label}
              current={map[account] ?? null}
            />
          </Card>
        ))}
        <Card title="QuickBooks Online date format">
          <p className="mb-3 text-sm text-ink-muted">
            QuickBooks reads the journal file&apos;s dates in the company&apos;s own date format: 04/03/2026 is 3 April
            to a US company and 4 March to one in the United Kingdom.
          </p>
          <DateOrderForm
            action={setQuickbooksDateOrderAction}
            gameId={game.id}
            current={dateOrder}
            options={QUICKBOOKS_DATE_ORDERS.map((order) => ({
              value: order,
              label: QUICKBOOKS_DATE_ORDER_LABELS[order],
            }))}
          />
        </Card>
      </div>
    </>
  );
}
