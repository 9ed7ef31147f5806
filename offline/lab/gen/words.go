package gen

// The word lists below were written for this package. Originals draw their words
// uniformly from them, so two distinct originals share almost no 5-word shingles:
// with 300 words there are 2.4e12 possible shingles and a page has a few hundred.

// englishWords is a list of common English words, one space-separated string.
const englishWords = `
time year people way day man thing woman life child world school state family student
group country problem hand part place case week company system program question work
government number night point home water room mother area money story fact month lot
right study book eye job word business issue side kind head house service friend father
power hour game line end member law car city community name president team minute idea
kid body information back parent face others level office door health person art war
history party result change morning reason research girl guy moment air teacher force
education foot boy age policy music market sense nation plan college interest death
experience effect use class control care field development role effort rate heart drug
show leader light voice wife police mind price report decision son view relationship town
road arm difference value building action model season society tax director position
player record paper space ground form event official matter center couple site project
activity star table need court oil situation cost industry figure street image phone
data picture practice piece land product doctor wall patient worker news test movie north
love support technology step baby computer type attention film tree source organization
hair window evidence population truth song energy garden river bridge harbour island
valley forest mountain village summer winter autumn spring letter stone bread salt
ask build carry choose climb collect cook cross deliver describe discover drive explain
follow gather grow hold improve join keep learn listen measure offer open paint plant
prepare protect reach repair return sell send share sing travel visit wait walk watch
write answer borrow check compare count dance decide enjoy finish hope invite jump laugh
mention notice order promise pull push remember rest save serve smile start stay touch
bright calm careful cheap clean clever cold dark deep early easy empty fair famous fast
fresh gentle happy heavy honest huge brave late loud lucky narrow nervous eager polite
proud quiet rapid rich rough round sharp short simple slow smooth soft strange strong
sudden sweet tall thick thin tired warm weak wide wild wise young yellow purple silver
golden wooden quickly slowly rarely often always never almost nearly perhaps really
about above across after against along among around before behind below beside between
beyond during inside near through toward under until upon within without
`

// russianWords is a list of common Russian words, including words with ё and й.
const russianWords = `
время год человек день дело жизнь рука работа слово место вопрос лицо глаз сторона
страна мир случай голова ребёнок сила конец вид система часть город отношение женщина
деньги земля машина вода отец проблема час право нога решение дверь образ история
власть закон война голос тысяча книга возможность результат ночь стол имя область
статья число компания народ жена группа развитие процесс суд условие средство начало
свет пора путь душа уровень форма связь минута улица вечер качество мысль дорога мать
действие месяц государство язык любовь взгляд мама век школа цель общество деятельность
организация президент комната порядок момент театр письмо помощь ситуация состояние
квартира внимание смысл орган рынок программа задача предприятие окно песня край май
чай музей герой бой трамвай сарай урожай лёд мёд ёлка ёжик берёза самолёт полёт счёт
учёт отчёт звёзды учёный трёх четвёртый зелёный тёплый тёмный весёлый лёгкий жёлтый
новый большой хороший главный последний русский должный любой высокий молодой
настоящий другой такой какой мой твой свой общий старый белый чёрный простой синий
сделать сказать знать стать видеть хотеть идти думать говорить смотреть жить понять
спросить работать любить стоять ждать взять помнить читать писать ответить играть
решить открыть бежать найти вернуть строить носить помочь учиться пойти подойти
всё ещё её уже очень тоже только также потом сейчас сегодня завтра вчера здесь всегда
никогда снова вместе почти быстро медленно тихо громко легко трудно далеко близко
между через после перед около вокруг против среди внутри вдоль
`
