// Forge answers the GUI reads as well as the bridge (docs/architecture.md §8): an issue as GET /repos/:name/issues lists
// it. The route's schema is in bridge/routes/forge.ts; the provider answers this type (bridge/providers).
export interface IssueSummary {
  number: number;
  title: string;
  state: string;
  author: string | null;
  url: string;
  createdAt: string;
  updatedAt: string;
}
