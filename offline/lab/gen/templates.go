package gen

// Site templates. Each is a whole page with {{name}} placeholders (see view.value).
// Everything but the <article> is boilerplate a cleaner is expected to drop: menus in
// <nav>, mastheads in <header>, ads and related links in <aside>, cookie and newsletter
// forms, copyright lines in <footer>, inline <script> and <style>. The boilerplate
// varies per page (dates, tokens, ad slots, related links), as it does on real sites.

// site is one hand-written site template.
type site struct {
	name    string
	domain  string
	page    string // the whole page
	navItem string // one menu entry, with {{href}} and {{label}}
	relItem string // one related link, with {{href}} and {{label}}
}

// sites returns the site templates; a mirror uses a different one than its original.
func sites() []site {
	return []site{heraldSite(), pulseSite(), vestnikSite(), scraperSite(), digestSite()}
}

func heraldSite() site {
	return site{
		name: "The Daily Herald", domain: "dailyherald.example.com",
		navItem: `<li class="menu-item"><a href="{{href}}">{{label}}</a></li>`,
		relItem: `<li><a class="most-read" href="{{href}}">{{label}}</a></li>`,
		page: `<!DOCTYPE html>
<html lang="{{lang}}">
<head>
<meta charset="utf-8">
<title>{{title}} | The Daily Herald</title>
<link rel="canonical" href="{{url}}">
<style>body{font-family:Georgia,serif;margin:0}.menu-item{display:inline-block;padding:4px}#cookie{position:fixed;bottom:0}</style>
<script>window.dataLayer=window.dataLayer||[];dataLayer.push({page:"{{token}}",section:"news"});</script>
</head>
<body>
<header class="masthead"><a href="/" class="logo">The Daily Herald</a> <span class="today">{{date}}</span>
<form class="search" action="/search" method="get"><input type="text" name="q" placeholder="{{search}}"><button type="submit">{{search}}</button></form>
</header>
<nav class="main-menu"><ul>{{nav}}</ul></nav>
<main>
<article class="story">
{{article}}</article>
<aside class="sidebar"><h3>{{relatedHead}}</h3><ol>{{related}}</ol>
<div class="ad" id="ad-slot-{{ad}}">{{advert}}</div></aside>
</main>
<footer><p>&copy; {{year}} The Daily Herald. {{rights}}</p><p><a href="/privacy">{{privacy}}</a> · <a href="/contact">{{contact}}</a></p></footer>
<form id="cookie" class="cookie-banner" method="post" action="/consent"><p>{{cookie}}</p><button type="submit" name="consent" value="yes">{{accept}}</button></form>
</body>
</html>
`,
	}
}

func pulseSite() site {
	return site{
		name: "TechPulse", domain: "techpulse.example.net",
		navItem: `<a class="nav-link" href="{{href}}">{{label}}</a>`,
		relItem: `<div class="card"><a href="{{href}}">{{label}}</a></div>`,
		page: `<!doctype html>
<html lang="{{lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} — TechPulse</title>
<style>
:root{--accent:#e4572e}.topbar{background:var(--accent)}.card{border:1px solid #ddd;margin:8px}
</style>
</head><body class="post-template">
<div class="wrapper">
<header class="topbar"><div class="brand">TechPulse</div><div class="tagline">{{tagline}}</div></header>
<nav class="navbar">{{nav}}</nav>
<div class="content">
<article class="post-content">{{article}}</article>
<aside class="related"><h4>{{relatedHead}}</h4>{{related}}
<div class="sponsored" data-slot="{{ad}}"><span class="label">Sponsored</span> {{advert}}</div>
<p class="comments">{{comments}} comments</p></aside>
</div>
<footer class="site-footer"><form class="newsletter" action="/subscribe" method="post"><label>{{subscribe}}</label> <input type="email" name="email"> <input type="submit" value="OK"></form>
<p>TechPulse {{year}} · {{rights}} · <a href="/about">{{about}}</a></p></footer>
</div>
<script>(function(){var s="{{token}}";window.tp={session:s,ts:{{ad}}};})();</script>
<form class="consent" method="post" action="/gdpr"><span>{{cookie}}</span><button>{{accept}}</button></form>
</body></html>
`,
	}
}

func vestnikSite() site {
	return site{
		name: "Vestnik Online", domain: "vestnik-online.example.org",
		navItem: `<li><a href="{{href}}" title="{{label}}">{{label}}</a></li>`,
		relItem: `<li class="news-item"><a href="{{href}}">{{label}}</a> <small>{{date}}</small></li>`,
		page: `<!DOCTYPE html>
<html lang="{{lang}}">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>{{title}} - Vestnik Online</title>
<meta name="description" content="Vestnik Online">
<script type="text/javascript">var _vq=_vq||[];_vq.push(["trackPageView","{{token}}"]);</script>
<style type="text/css">.left-col{float:left;width:20%}.center{margin-left:22%}.news-item small{color:#888}</style>
</head>
<body>
<div id="top"><header><h2 class="site-name">Vestnik Online</h2><p class="date-line">{{date}}</p></header></div>
<div class="left-col"><nav id="rubrics"><ul>{{nav}}</ul></nav>
<aside class="banner"><a href="/ads/{{ad}}" rel="nofollow">{{advert}}</a></aside></div>
<div class="center">
<article id="main-text">
{{article}}</article>
<aside class="see-also"><h3>{{relatedHead}}</h3><ul>{{related}}</ul></aside>
</div>
<footer id="bottom">Vestnik Online, {{year}}. {{rights}} <a href="/rss">RSS</a></footer>
<div class="cookie-warning"><form method="post" action="/cookies"><p>{{cookie}}</p><input type="submit" value="{{accept}}"></form></div>
</body>
</html>
`,
	}
}

func scraperSite() site {
	return site{
		name: "NewsMirror", domain: "newsmirror.example.info",
		navItem: `<span><a href="{{href}}">{{label}}</a></span> `,
		relItem: `<p><a href="{{href}}">{{label}}</a></p>`,
		page: `<html lang="{{lang}}"><head><title>{{title}}</title>
<script async src="https://ads.example.info/loader.js?id={{ad}}"></script>
<script>var mirror_ref="{{token}}";</script>
</head>
<body bgcolor="#ffffff">
<header><center><b>NewsMirror</b> — {{tagline}}</center></header>
<nav>{{nav}}</nav>
<aside class="top-ad"><div>{{advert}}</div></aside>
<article>{{article}}</article>
<aside><b>{{relatedHead}}</b>{{related}}</aside>
<footer><small>{{rights}} NewsMirror {{year}}. <a href="/dmca">DMCA</a></small></footer>
<form action="/ok" method="get"><small>{{cookie}}</small> <button name="c" value="1">{{accept}}</button></form>
</body></html>
`,
	}
}

func digestSite() site {
	return site{
		name: "Morning Digest", domain: "morningdigest.example.com",
		navItem: `<li class="nav__item"><a class="nav__link" href="{{href}}">{{label}}</a></li>`,
		relItem: `<li class="teaser"><a href="{{href}}"><span class="teaser__title">{{label}}</span></a></li>`,
		page: `<!DOCTYPE html>
<html class="no-js" lang="{{lang}}">
<head>
<meta charset="UTF-8">
<title>{{title}} • Morning Digest</title>
<link rel="canonical" href="{{url}}">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<style>.nav__list{list-style:none;display:flex}.teaser__title{font-weight:600}.paywall{display:none}</style>
<script>document.documentElement.className="js";window.__md={"id":"{{token}}","slot":{{ad}}};</script>
</head>
<body>
<header class="header"><div class="header__logo">Morning Digest</div><time class="header__date">{{date}}</time>
<nav class="nav" aria-label="main"><ul class="nav__list">{{nav}}</ul></nav></header>
<main class="layout">
<article class="article-body" itemprop="articleBody">
{{article}}</article>
<aside class="rail"><section><h2>{{relatedHead}}</h2><ul>{{related}}</ul></section>
<section class="promo" data-ad="{{ad}}">{{advert}}</section>
<form class="newsletter-signup" action="/newsletter" method="post"><label for="nl">{{subscribe}}</label><input id="nl" type="email" name="email"><button type="submit">OK</button></form></aside>
</main>
<footer class="footer"><nav class="footer__nav"><a href="/terms">{{terms}}</a> <a href="/privacy">{{privacy}}</a> <a href="/contact">{{contact}}</a></nav>
<p>&copy; {{year}} Morning Digest Media. {{rights}}</p></footer>
<div class="cookie-bar"><form action="/consent" method="post">{{cookie}} <button>{{accept}}</button></form></div>
<script>(function(d){var s=d.createElement("script");s.src="/static/app.js?v={{ad}}";d.body.appendChild(s);})(document);</script>
</body>
</html>
`,
	}
}
