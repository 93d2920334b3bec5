export { type ChromiumBinary, desktopArgs, findChromium, systemChromium } from './chromium';
export {
  BrowserSession,
  type ColourScheme,
  DESKTOP,
  NARROW_WIDTH,
  SCREENSHOT_DIR,
  type SessionProblems,
  staysWith,
  TestBrowser,
} from './test-browser';
