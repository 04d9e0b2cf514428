// Which resources are served right now: the built-ins, the schemaless Ship/Repo defaults, and whatever the
// installed CRDs define (a CRD replaces a default of the same group and plural; deleting it brings the
// default back). Lookups by URL (group, version, plural) and by store key; discovery and OpenAPI are built
// from this list, so a resource appears everywhere the moment it is installed.
import { resourceKey, type ResourceType } from './resources.js';

export class ResourceRegistry {
  private readonly served = new Map<string, ResourceType>();
  private readonly defaults = new Map<string, ResourceType>();

  constructor(builtIns: ResourceType[], schemalessDefaults: ResourceType[]) {
    for (const resource of builtIns) this.served.set(resourceKey(resource), resource);
    for (const resource of schemalessDefaults) {
      this.defaults.set(resourceKey(resource), resource);
      this.served.set(resourceKey(resource), resource);
    }
  }

  install(resource: ResourceType): void {
    this.served.set(resourceKey(resource), resource);
  }

  uninstall(key: string): void {
    const fallback = this.defaults.get(key);
    if (fallback) this.served.set(key, fallback);
    else this.served.delete(key);
  }

  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    const resource = this.served.get(group ? `${plural}.${group}` : plural);
    return resource?.versions.includes(version) ? resource : undefined;
  }

  byKey(key: string): ResourceType | undefined {
    return this.served.get(key);
  }

  all(): ResourceType[] {
    return [...this.served.values()];
  }

  /** API groups other than core, each with its versions (preferred first). */
  groups(): Array<{ name: string; versions: string[] }> {
    const groups = new Map<string, string[]>();
    for (const resource of this.served.values()) {
      if (!resource.group) continue;
      const versions = groups.get(resource.group) ?? [];
      for (const version of resource.versions) if (!versions.includes(version)) versions.push(version);
      groups.set(resource.group, versions);
    }
    return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, versions]) => ({ name, versions }));
  }

  in(group: string, version: string): ResourceType[] {
    return this.all().filter((resource) => resource.group === group && resource.versions.includes(version));
  }
}
