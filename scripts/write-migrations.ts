// Writes the inquiry store's Postgres migrations where Netlify applies them on deploy
// (netlify/database/migrations/), from the one schema source (server/inquiries/store/schema.ts);
// a test fails while a file differs from it.
// Usage: npm run migrations
import fs from "node:fs";
import path from "node:path";
import { netlifyMigrationFiles } from "../server/inquiries/store/schema";

const root = path.resolve(__dirname, "..");
const files = netlifyMigrationFiles();
for (const { path: file, text } of files) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}
console.log(`Wrote ${files.length} migration files: ${files.map((file) => file.path).join(", ")}`);
