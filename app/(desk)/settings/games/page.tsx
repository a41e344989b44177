import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { listGames } from "@/db/queries/games";
import { requirePageRole } from "@/lib/auth/session";
import { revokePreviousWebhookSecretAction, saveGameAction } from "./actions";
import { GameForm, RevokePreviousForm } from "./game-form";
import { DateTime } from "@/app/_components/ui/date-time";

export const metadata: Metadata = { title: "Games" };

export default async function GamesPage() {
  await requirePageRole("admin");
  const games = await listGames(getDb());
  return (
    <>
      <PageHeader title="Games" description="Each game has its own service secret; Payout Desk works on one game at a time." />
      <section aria-labelledby="games-heading" className="mb-8">
        <h2 id="games-heading" className="mb-3 text-sm font-semibold text-ink">
          Configured games
        </h2>
        {games.length === 0 ? (
          <EmptyState title="No games yet">Add the first game below with the secret from the service console.</EmptyState>
        ) : (
          <div className="overflow-x-auto rounded-lg border border-line bg-surface">
            <table className="min-w-full text-sm">
              <thead className="bg-subtle text-left text-ink-muted">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">Game</th>
                  <th scope="col" className="px-3 py-2 font-medium">Environment</th>
                  <th scope="col" className="px-3 py-2 font-medium">Base URL</th>
                  <th scope="col" className="px-3 py-2 font-medium">Game secret</th>
                  <th scope="col" className="px-3 py-2 font-medium">Webhook secrets</th>
                </tr>
              </thead>
              <tbody>
                {games.map((game) => (
                  <tr key={game.id} className="border-t border-line">
                    <td className="px-3 py-2">
                      <div className="font-medium text-ink">{game.name}</div>
                      <div className="font-mono text-xs text-ink-muted">{game.id}</div>
                    </td>
                    <td className="px-3 py-2">
                      <Badge tone={game.environment === "sandbox" ? "warning" : "info"}>{game.environment}</Badge>
                    </td>
                    <td className="px-3 py-2 font-mono text-xs">{game.baseUrl}</td>
                    <td className="px-3 py-2 font-mono text-xs">{game.secretMask}</td>
                    <td className="px-3 py-2 font-mono text-xs">
                      {game.webhookSecretMask ?? "none"}
                      {game.webhookPreviousSecretMask && game.webhookPreviousExpiresAt && (
                        <div className="mt-1 font-sans text-ink-muted">
                          Previous {game.webhookPreviousSecretMask} accepted until{" "}
                          <DateTime value={game.webhookPreviousExpiresAt.toISOString()} focusable={false} />
                          <RevokePreviousForm action={revokePreviousWebhookSecretAction} gameId={game.id} />
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <Card>
        <h2 className="mb-4 text-sm font-semibold text-ink">Add or update a game</h2>
        <GameForm action={saveGameAction} />
      </Card>
    </>
  );
}
