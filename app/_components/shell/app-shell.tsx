import type { ReactNode } from "react";
import { Badge } from "../ui/badge";
import { PageAlertProvider } from "../ui/page-alert";
import { GameSwitcher, type ShellGame } from "./game-switcher";
import { NavLink } from "./nav-link";
import { navItemsFor } from "./nav-items";
import { SandboxBanner } from "./sandbox-banner";
import type { ShellAction } from "./shell-action";
import { SignOutForm } from "./sign-out-form";

export type AppShellProps = {
  user: { email: string; name?: string | null; role: string };
  games: ShellGame[];
  selectedGameId: string | null;
  children: ReactNode;
  /** Server action reading `gameId` from the form. */
  switchGameAction: ShellAction;
  signOutAction: ShellAction;
};

/**
 * The frame of every signed-in page: skip link, sidebar (product, game switcher, navigation, who is signed in,
 * sign out) and the main region, which starts with the sandbox banner when the selected game is a sandbox.
 */
export function AppShell({ user, games, selectedGameId, children, switchGameAction, signOutAction }: AppShellProps) {
  const selected = games.find((game) => game.id === selectedGameId) ?? null;
  return (
    <div className="min-h-screen md:flex">
      <a
        href="#main-content"
        className={
          "sr-only z-50 rounded-md bg-accent px-3 py-2 font-medium text-ink-inverse focus:not-sr-only " +
          "focus:fixed focus:top-2 focus:left-2"
        }
      >
        Skip to content
      </a>
      <aside
        className={
          "flex flex-col gap-4 border-b border-line bg-surface px-3 py-3 md:sticky md:top-0 md:h-screen " +
          "md:w-60 md:shrink-0 md:overflow-y-auto md:border-r md:border-b-0"
        }
      >
        <p className="px-1 text-base font-semibold tracking-tight text-ink">Payout Desk</p>
        <div className="px-1">
          <GameSwitcher games={games} selectedGameId={selectedGameId} action={switchGameAction} />
        </div>
        <nav aria-label="Main">
          <ul className="flex gap-1 overflow-x-auto md:flex-col">
            {navItemsFor(user.role).map((item) => (
              <li key={item.href}>
                <NavLink href={item.href} also={item.also}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex flex-col gap-2 border-t border-line px-1 pt-3 md:mt-auto">
          <div className="min-w-0">
            {user.name ? <p className="truncate font-medium text-ink">{user.name}</p> : null}
            <p className="truncate text-xs text-ink-muted" title={user.email}>
              {user.email}
            </p>
            <p className="mt-1 text-xs text-ink-muted">
              Role: <Badge>{user.role.charAt(0).toUpperCase() + user.role.slice(1)}</Badge>
            </p>
          </div>
          <SignOutForm action={signOutAction} />
        </div>
      </aside>
      <main id="main-content" tabIndex={-1} className="min-w-0 flex-1 px-4 py-5 md:px-8">
        <div className="mx-auto max-w-7xl">
          {selected?.environment === "sandbox" ? <SandboxBanner gameName={selected.name} /> : null}
          <PageAlertProvider>{children}</PageAlertProvider>
        </div>
      </main>
    </div>
  );
}
