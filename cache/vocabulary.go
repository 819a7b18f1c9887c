package cache

import (
	"sync"

	"github.com/klauspost/compress/s2"
)

// vocabulary is what robots.txt files have in common, written out once so
// that a small body can refer to it rather than spell it: an s2 block made
// against it copies "Disallow: /wp-admin/\n" in two or three octets, where a
// block of its own spells out the first use of every word. Most files are
// small (nine in ten of the real-world corpus under 4 KiB) and say little
// twice, so that alone they compress to 45% of their size; against it, to
// 36% (see appendVocab).
//
// It was written from what the formats and the common crawlers, servers
// and site generators put in robots.txt, not drawn from any corpus. The
// likeliest words come last: an s2 copy is shortest at an offset under
// 2 KiB. It is part of the format of bodies in memory only, as a record is
// expanded before it is encoded or shared; a process reads back only what
// it compressed itself.
const vocabulary = `# robots.txt: see https://www.robotstxt.org/ and RFC 9309
# Block all crawlers from these folders. Please do not crawl
# https:// www. .com/ .org/ .net/ .xml .html .php .aspx .jsp .gif .jpg .png .css .js .json .txt .pdf .zip
User-agent: Googlebot-Image
User-agent: Googlebot-News
User-agent: Googlebot-Video
User-agent: Google-Extended
User-agent: Mediapartners-Google
User-agent: AdsBot-Google
User-agent: Storebot-Google
User-agent: Yahoo! Slurp
User-agent: msnbot
User-agent: bingbot
User-agent: Bingbot
User-agent: DuckDuckBot
User-agent: Baiduspider
User-agent: YandexBot
User-agent: Yandex
User-agent: Sogou
User-agent: Exabot
User-agent: facebookexternalhit
User-agent: Twitterbot
User-agent: LinkedInBot
User-agent: Pinterestbot
User-agent: Applebot-Extended
User-agent: Applebot
User-agent: ia_archiver
User-agent: archive.org_bot
User-agent: AhrefsBot
User-agent: SemrushBot
User-agent: MJ12bot
User-agent: DotBot
User-agent: BLEXBot
User-agent: PetalBot
User-agent: Bytespider
User-agent: CCBot
User-agent: ChatGPT-User
User-agent: OAI-SearchBot
User-agent: GPTBot
User-agent: ClaudeBot
User-agent: Claude-Web
User-agent: anthropic-ai
User-agent: PerplexityBot
User-agent: cohere-ai
User-agent: Amazonbot
User-agent: meta-externalagent
User-agent: Googlebot
Crawl-delay: 10
Crawl-delay: 5
Request-rate: 1/10
Host: www.
Noindex: /
Clean-param: utm_source&utm_medium&utm_campaign
Content-Usage: train-ai=n
Content-Signal: search=yes, ai-input=no, ai-train=no
Disallow: /administrator/
Disallow: /cache/
Disallow: /cli/
Disallow: /components/
Disallow: /installation/
Disallow: /language/
Disallow: /layouts/
Disallow: /libraries/
Disallow: /logs/
Disallow: /plugins/
Disallow: /core/
Disallow: /profiles/
Disallow: /misc/
Disallow: /scripts/
Disallow: /README.txt
Disallow: /CHANGELOG.txt
Disallow: /INSTALL.txt
Disallow: /LICENSE.txt
Disallow: /web.config
Disallow: /xmlrpc.php
Disallow: /wp-login.php
Disallow: /wp-content/plugins/
Disallow: /wp-content/cache/
Disallow: /wp-includes/
Disallow: /trackback/
Disallow: /feed/
Disallow: /comments/
Disallow: /comment/reply/
Disallow: /filter/tips
Disallow: /node/add/
Disallow: /user/register
Disallow: /user/password
Disallow: /user/login
Disallow: /user/logout
Disallow: /index.php/
Disallow: /?s=
Disallow: /*?s=
Disallow: /*?*
Disallow: /*?
Disallow: /*&
Disallow: /*?page=
Disallow: /*?sort=
Disallow: /*?filter=
Disallow: /*sort_by*
Disallow: /*.php$
Disallow: /*.pdf$
Disallow: /*.json$
Allow: /*.css$
Allow: /*.js$
Allow: /*.css
Allow: /*.js
Disallow: /tag/
Disallow: /category/
Disallow: /print/
Disallow: /images/
Disallow: /img/
Disallow: /assets/
Disallow: /static/
Disallow: /media/
Disallow: /include/
Disallow: /includes/
Disallow: /modules/
Disallow: /templates/
Disallow: /themes/
Disallow: /tmp/
Disallow: /temp/
Disallow: /test/
Disallow: /dev/
Disallow: /backup/
Disallow: /private/
Disallow: /api/
Disallow: /ajax/
Disallow: /account/
Disallow: /my-account/
Disallow: /customer/
Disallow: /orders
Disallow: /checkout/
Disallow: /checkout
Disallow: /cart/
Disallow: /cart
Disallow: /basket
Disallow: /wishlist
Disallow: /compare
Disallow: /register
Disallow: /signup
Disallow: /logout
Disallow: /login/
Disallow: /login
Disallow: /search/
Disallow: /search
Disallow: /cgi-bin/
Disallow: /admin/
Disallow: /admin
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Allow: /wp-content/uploads/
Disallow:
Disallow: /
Allow: /

Sitemap: https://www.example.com/sitemap.xml
Sitemap: https://www.example.com/sitemap_index.xml
Sitemap: https://example.com/sitemap.xml

User-agent: *
Disallow: /`

// vocabularyDict returns the s2 dictionary of vocabulary, made once, which
// reads back the blocks appendVocab makes.
var vocabularyDict = sync.OnceValue(func() *s2.Dict {
	d := s2.MakeDict(vocabBytes, nil) // appendVocab makes no repeat copies: no repeat offset to find
	if d == nil {
		panic("cache: the vocabulary is no s2 dictionary") // a constant: cannot happen
	}
	return d
})
