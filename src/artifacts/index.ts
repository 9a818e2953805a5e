// The artifact store: the interface, and the local-folder implementation used today.
export { artifactKeySegments, InvalidArtifactKeyError, type ArtifactStore, type StoredArtifact } from './store';
export { LocalArtifactStore } from './local';
