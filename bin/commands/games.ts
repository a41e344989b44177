import { z } from "zod";
import type { ActingAs } from "@/core/actor";
import { listGames } from "@/db/queries/games";
import { rotateWebhookSecret, saveGame } from "@/lib/games/games";
import { baseUrlSchema, gameIdSchema, secretSchema } from "@/lib/games/schemas";
import { secretFromFile } from "../cli";
import { type Command, withDb } from "../with-db";

/** `games add` and `games list`: the games Payout Desk serves, their secrets sealed and never printed. */

const CLI: ActingAs = { actor: null, via: "cli" };

export const gameCommands: Record<string, Command> = {
  "games add": {
    spec: {
      usage:
        "npm run desk -- games add --id ID --name N --env sandbox|production --base-url URL --secret S " +
        "[--webhook-secret W ...] [--replace [--change-environment]]\n" +
        "       (or --secret-file F and --webhook-secret-file F ...: the secrets read from files)",
      description:
        "Adds a game with its service secret and webhook signing secrets (the first is current, a second is the " +
        "previous one during a rotation). Secrets are stored encrypted. A secret on the command line is seen by " +
        "ps and kept in shell history: prefer the -file options (the file's first line).",
      options: {
        id: { type: "string", description: "The game id the service uses" },
        name: { type: "string", description: "Display name" },
        env: { type: "string", description: "sandbox | production" },
        "base-url": { type: "string", description: "The service's base URL (without /sandbox)" },
        secret: { type: "string", description: "The game secret (X-Game-Secret-Key)" },
        "secret-file": { type: "string", description: "A file whose first line is the game secret" },
        "webhook-secret": { type: "string", multiple: true, description: "A webhook signing secret" },
        "webhook-secret-file": {
          type: "string",
          multiple: true,
          description: "A file whose first line is a webhook signing secret",
        },
        replace: {
          type: "boolean",
          description: "Replace the settings of an existing game (its webhook signing secrets are kept unless given)",
        },
        "change-environment": {
          type: "boolean",
          description: "With --replace: let an existing game change environment (its calls and payment files change)",
        },
      },
      schema: z
        .object({
          id: gameIdSchema,
          name: z.string().trim().min(1, { message: "is required" }).max(120),
          env: z.enum(["sandbox", "production"], { message: "must be sandbox or production" }),
          "base-url": baseUrlSchema,
          secret: secretSchema.optional(),
          "secret-file": z.string().trim().min(1).optional(),
          "webhook-secret": z.array(secretSchema).default([]),
          "webhook-secret-file": z.array(z.string().trim().min(1)).default([]),
          replace: z.boolean().default(false),
          "change-environment": z.boolean().default(false),
        })
        .superRefine((f, ctx) => {
          if (Boolean(f.secret) === Boolean(f["secret-file"]))
            ctx.addIssue({ code: "custom", message: "give it, or --secret-file (one of the two)", path: ["secret"] });
          if (f["webhook-secret"].length + f["webhook-secret-file"].length > 2)
            ctx.addIssue({
              code: "custom",
              message: "takes at most two values (current, previous), with --webhook-secret-file",
              path: ["webhook-secret"],
            });
          // Which is current is the order given, and the order between the two kinds of flag is not kept.
          else if (f["webhook-secret"].length > 0 && f["webhook-secret-file"].length > 0)
            ctx.addIssue({
              code: "custom",
              message: "cannot be mixed with --webhook-secret-file: give both secrets one way, the current first",
              path: ["webhook-secret"],
            });
        }),
    },
    run: async (flags: {
      id: string;
      name: string;
      env: "sandbox" | "production";
      "base-url": string;
      secret?: string;
      "secret-file"?: string;
      "webhook-secret": string[];
      "webhook-secret-file": string[];
      replace: boolean;
      "change-environment": boolean;
    }) => {
      const secret =
        flags.secret ?? (await secretFromFile("secret-file", flags["secret-file"] as string, secretSchema));
      const webhookSecrets = [...flags["webhook-secret"]];
      for (const file of flags["webhook-secret-file"])
        webhookSecrets.push(await secretFromFile("webhook-secret-file", file, secretSchema));
      return withDb(
        async (db) => {
          const game = await saveGame(
            db,
            {
              id: flags.id,
              name: flags.name,
              environment: flags.env,
              baseUrl: flags["base-url"],
              secret,
              webhookSecrets,
            },
            { replace: flags.replace, environmentChange: flags["change-environment"], as: CLI },
          );
          return {
            id: game.id,
            name: game.name,
            environment: game.environment,
            baseUrl: game.baseUrl,
            secret: game.secretMask,
          };
        },
        { keys: true },
      );
    },
  },
  "games rotate-webhook-secret": {
    spec: {
      usage: "npm run desk -- games rotate-webhook-secret --id ID --webhook-secret-file F (or --webhook-secret W)",
      description:
        "Makes a new webhook signing secret current; the one it replaces stays accepted for the service's 7-day " +
        "rotation grace. The secret is stored encrypted and never printed.",
      options: {
        id: { type: "string", description: "The game id" },
        "webhook-secret": { type: "string", description: "The new signing secret" },
        "webhook-secret-file": { type: "string", description: "A file whose first line is the new signing secret" },
      },
      schema: z
        .object({
          id: gameIdSchema,
          "webhook-secret": secretSchema.optional(),
          "webhook-secret-file": z.string().trim().min(1).optional(),
        })
        .superRefine((f, ctx) => {
          if (Boolean(f["webhook-secret"]) === Boolean(f["webhook-secret-file"]))
            ctx.addIssue({
              code: "custom",
              message: "give it, or --webhook-secret-file (one of the two)",
              path: ["webhook-secret"],
            });
        }),
    },
    run: async (flags: { id: string; "webhook-secret"?: string; "webhook-secret-file"?: string }) => {
      const secret =
        flags["webhook-secret"] ??
        (await secretFromFile("webhook-secret-file", flags["webhook-secret-file"] as string, secretSchema));
      return withDb(
        async (db) => {
          const { previousKept } = await rotateWebhookSecret(db, flags.id, secret, CLI);
          return { id: flags.id, rotated: true, previousAcceptedForDays: previousKept ? 7 : 0 };
        },
        { keys: true },
      );
    },
  },
  "games list": {
    spec: {
      usage: "npm run desk -- games list",
      description: "Lists games (secrets masked).",
      options: {},
      schema: z.object({}),
    },
    run: () =>
      withDb(async (db) =>
        (await listGames(db)).map((g) => ({
          id: g.id,
          name: g.name,
          environment: g.environment,
          baseUrl: g.baseUrl,
          secret: g.secretMask,
        })),
      ),
  },
};
