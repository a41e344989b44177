import path from "node:path";
import { ensureBuild } from "./build-state";

/** `npm run build`: the production build, skipped while the one in `.next` was made from the same sources. */
const root = path.resolve(import.meta.dirname, "..");
const built = await ensureBuild(root, process.env);
console.error(built ? "Built Payout Desk." : "The build is current: nothing to do.");
