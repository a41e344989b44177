"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { getDb } from "@/db";
import { definePublicAction } from "@/lib/actions";
import { beginSignInAttempt, clientAddress, markSignInSucceeded, signInWithPassword } from "@/lib/auth/sign-in";
import { safeNextPath } from "@/lib/auth/next-path";
import { emailSchema } from "@/lib/auth/users";

const signInSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, { message: "is required" }).max(128, { message: "must be at most 128 characters" }),
  // Where to land: anything but a page of this app lands on Payouts.
  next: z.unknown().optional().transform(safeNextPath),
});

export const signInAction = definePublicAction(
  { name: "signIn", reason: "signing in is what creates a session", input: signInSchema },
  async ({ email, password, next }) => {
    const db = getDb();
    const requestHeaders = await headers();
    const attemptId = await beginSignInAttempt(db, email, clientAddress(requestHeaders));
    const user = await signInWithPassword(db, {
      email,
      password,
      headers: requestHeaders,
      record: (signedIn) => markSignInSucceeded(db, attemptId, { user: signedIn, via: "web" }),
    });
    if (!user)
      return {
        ok: false,
        code: "UNAUTHENTICATED",
        message: "That email and password do not match an account.",
        // The email stays in the form (never the password), to correct one or the other.
        values: { email },
      };
    redirect(next);
  },
);
