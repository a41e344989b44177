"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { getDb } from "@/db";
import { findGame, setSelectedGameId } from "@/db/queries/games";
import { defineAction } from "@/lib/actions";
import { signOut } from "@/lib/auth/sign-in";
import { AppError } from "@/lib/errors";
import { gameIdSchema } from "@/lib/games/schemas";

export const switchGameAction = defineAction(
  { name: "switchGame", role: "viewer", input: z.object({ gameId: gameIdSchema }) },
  async ({ gameId }, { user }) => {
    const db = getDb();
    if (!(await findGame(db, gameId))) throw new AppError("NOT_FOUND", `No game ${gameId}.`, { field: "gameId" });
    await setSelectedGameId(db, user.sessionId, gameId);
    // Every layout is drawn again for the game switched to (the sandbox banner, the switcher), not only the page.
    revalidatePath("/", "layout");
    redirect("/payouts");
  },
);

export const signOutAction = defineAction(
  { name: "signOut", role: "viewer", input: z.object({}) },
  async (_input, { user }) => {
    await signOut(getDb(), await headers(), { actor: user, via: "web" });
    redirect("/sign-in");
  },
);
