import type { Metadata } from "next";
import { NoticeProvider } from "@/app/_components/payouts/result-notice";
import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { listGames } from "@/db/queries/games";
import { requirePageRole } from "@/lib/auth/session";
import { revokePreviousWebhookSecretAction, rotateWebhookSecretAction, saveGameAction } from "./actions";
import { GameForm, RevokePreviousForm, RotateSecretForm } from "./game-form";
import { DateTime } from "@/app/_components/ui/date-time";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";

export const metadata: Metadata = { title: "Games" };

export default async function GamesPage() {
  await requirePageRole("admin");
  const games = await listGames(getDb());
  return (
    // One message area for the page: a revocation's row loses its form with the previous secret, not its message.
    <NoticeProvider>
      <PageHeader
        title="Games"
        description="Each game has its own service secret; Payout Desk works on one game at a time."
      />
      <section aria-labelledby="games-heading" className="mb-8">
        <h2 id="games-heading" className="mb-3 text-sm font-semibold text-ink">
          Configured games
        </h2>
        {games.length === 0 ? (
          <EmptyState title="No games yet">
            Add the first game below with the secret from the service console.
          </EmptyState>
        ) : (
          <SimpleTable
            caption="Games, their service and secrets"
            head={
              <>
                <Th>Game</Th>
                <Th>Environment</Th>
                <Th>Base URL</Th>
                <Th>Game secret</Th>
                <Th>Webhook secrets</Th>
              </>
            }
          >
            {games.map((game) => (
              <Tr key={game.id}>
                <Td>
                  <div className="font-medium text-ink">{game.name}</div>
                  <div className="font-mono text-xs text-ink-muted">{game.id}</div>
                </Td>
                <Td>
                  <Badge tone={game.environment === "sandbox" ? "warning" : "info"}>{game.environment}</Badge>
                </Td>
                <Td className="font-mono text-xs">{game.baseUrl}</Td>
                <Td className="font-mono text-xs">{game.secretMask}</Td>
                <Td className="font-mono text-xs">
                  {game.webhookSecretMask ?? "none"}
                  {game.webhookPreviousSecretMask && game.webhookPreviousExpiresAt && (
                    <div className="mt-1 font-sans text-ink-muted">
                      Previous {game.webhookPreviousSecretMask} accepted until{" "}
                      <DateTime value={game.webhookPreviousExpiresAt.toISOString()} focusable={false} />
                      <RevokePreviousForm action={revokePreviousWebhookSecretAction} gameId={game.id} />
                    </div>
                  )}
                </Td>
              </Tr>
            ))}
          </SimpleTable>
        )}
      </section>
      {games.length > 0 && (
        <Card className="mb-8">
          <h2 className="mb-4 text-sm font-semibold text-ink">Rotate a webhook signing secret</h2>
          <RotateSecretForm
            action={rotateWebhookSecretAction}
            games={games.map((game) => ({ id: game.id, name: game.name }))}
          />
        </Card>
      )}
      <Card>
        <h2 className="mb-4 text-sm font-semibold text-ink">Add or update a game</h2>
        <GameForm action={saveGameAction} />
      </Card>
    </NoticeProvider>
  );
}
