// class-transformer keeps its decorators' metadata in this module and ships its types under types/.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
