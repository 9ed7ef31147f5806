package gen

// sectionSlugs are the URL sections; labels.nav holds one menu entry per slug.
const sectionSlugs = "world business science sport culture technology opinion"

// labels are a site's boilerplate strings in one language.
type labels struct {
	nav                              []string
	search, relatedHead, cookie      string
	accept, rights, privacy, contact string
	subscribe, about, terms, tagline string
	adverts                          []string
}

// labelsFor returns the boilerplate strings for lang ("en" or "ru").
func labelsFor(lang string) labels {
	if lang == "ru" {
		return labels{
			nav:         []string{"В мире", "Экономика", "Наука", "Спорт", "Культура", "Технологии", "Мнения"},
			search:      "Поиск",
			relatedHead: "Читайте также",
			cookie:      "Мы используем файлы cookie, чтобы сайт работал лучше.",
			accept:      "Принять",
			rights:      "Все права защищены.",
			privacy:     "Политика конфиденциальности",
			contact:     "Контакты",
			subscribe:   "Подпишитесь на рассылку",
			about:       "О нас",
			terms:       "Условия использования",
			tagline:     "Новости каждый день",
			adverts: []string{"Скидки до 50% только сегодня!", "Новый тариф: безлимитный интернет за 299 ₽",
				"Курсы английского языка онлайн", "Ремонт квартир под ключ — звоните!"},
		}
	}
	return labels{
		nav:         []string{"World", "Business", "Science", "Sport", "Culture", "Technology", "Opinion"},
		search:      "Search",
		relatedHead: "Read next",
		cookie:      "We use cookies to make this site work better for you.",
		accept:      "Accept all",
		rights:      "All rights reserved.",
		privacy:     "Privacy policy",
		contact:     "Contact us",
		subscribe:   "Get the newsletter",
		about:       "About",
		terms:       "Terms of use",
		tagline:     "News you can use",
		adverts: []string{"Save 50% on your first order today!", "Refinance now: rates from 3.9% APR",
			"Learn a language in 10 minutes a day", "The one trick dentists do not want you to know"},
	}
}
