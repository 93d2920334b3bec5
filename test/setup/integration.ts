import { warmCompileCache } from '@emailverify/testing';

/** Once before the integration and end-to-end files: the apps' modules compiled into the compile cache. */
export default async function setup(): Promise<void> {
  await warmCompileCache();
}
