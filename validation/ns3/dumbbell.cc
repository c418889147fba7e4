// The dumbbell of validation/compare_ns3.py in ns-3 (3.37): N NewReno bulk flows from
// s_i through "left" and a 20 Mb/s bottleneck to "right" and r_i, the bottleneck's
// data-direction queue one of ns-3's queue discs. Prints one line of key=value figures:
// goodput; the queue disc's drops (in all, from the samples' start on, and by ns-3's own
// reason) and marks; the flows'
// own retransmitted segments and timeouts (from their sockets' traces); the bottleneck's
// carried rate; and writes the bytes waiting at the port (the queue disc's and the device
// queue's, not the packet on the wire; and the queue disc's alone) every millisecond, as
// queueing delays at the link's rate (ms), for the script's percentiles.
//
//   ./dumbbell --disc=codel --flows=8 --duration=30 --sack=1 --ecn=0 --ssthresh=0 --from=5 --delays=FILE
//             [--flightsize=1] [--trace=FILE] [--drops=FILE]
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

using namespace ns3;

namespace ns3 {

// NewReno whose ssthresh on entering fast recovery is half the FlightSize (RFC 6675 §5
// step 4.2, RFC 5681 eq. (4)) less the new data sent on the duplicate ACKs before it
// (RFC 5681 §3.2 step 2 leaves limited transmit out), as rampup's. ns-3's
// TcpSocketBase::EnterRecovery passes BytesInFlight() instead: the pipe, without the
// SACKed and lost segments. Its other calls (the timeout's) keep ns-3's own rule.
class TcpNewRenoFlightSize : public TcpNewReno {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("ns3::TcpNewRenoFlightSize").SetParent<TcpNewReno>().SetGroupName("Internet").AddConstructor<TcpNewRenoFlightSize>();
    return tid;
  }
  TcpNewRenoFlightSize() = default;
  TcpNewRenoFlightSize(const TcpNewRenoFlightSize& o) = default;

  // Called just before the state changes: CA_DISORDER at the first duplicate ACK (before
  // anything is sent on it), CA_RECOVERY just before EnterRecovery asks for ssthresh.
  void CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t state) override {
    if (state == TcpSocketState::CA_DISORDER) m_highAtDisorder = tcb->m_highTxMark;
    m_entering = state == TcpSocketState::CA_RECOVERY;
    TcpNewReno::CongestionStateSet(tcb, state);
  }

  uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override {
    if (!m_entering) return TcpNewReno::GetSsThresh(tcb, bytesInFlight);
    m_entering = false;
    uint32_t flight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
    uint32_t limited = tcb->m_highTxMark.Get() > m_highAtDisorder ? tcb->m_highTxMark.Get() - m_highAtDisorder : 0;
    return std::max(2 * tcb->m_segmentSize, (flight - std::min(flight, limited)) / 2);
  }

  Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpNewRenoFlightSize>(this); }

 private:
  SequenceNumber32 m_highAtDisorder{0};
  bool m_entering = false;
};
NS_OBJECT_ENSURE_REGISTERED(TcpNewRenoFlightSize);

}  // namespace ns3

namespace {

const double kRateBps = 20e6;
// ns-3's point-to-point device adds a 2-byte PPP header to every IP packet it queues.
const uint32_t kPppBytes = 2;

// One flow's sender as its socket's traces report it.
struct FlowCounts {
  uint64_t retransmits = 0;
  uint64_t timeouts = 0;
  SequenceNumber32 high{0};
};

std::vector<FlowCounts> g_flows;
// Per sample: the port's waiting bytes and the queue disc's alone, as delays (ms).
std::vector<std::pair<double, double>> g_delays_ms;
Ptr<QueueDisc> g_disc;
Ptr<Queue<Packet>> g_device_queue;

std::ofstream g_trace;

// A data segment below the highest byte sent so far is a retransmission.
void OnTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
  if (p->GetSize() == 0) return;
  FlowCounts& f = g_flows[i];
  if (h.GetSequenceNumber() < f.high) {
    f.retransmits++;
    if (g_trace.is_open()) g_trace << Simulator::Now().GetSeconds() << " " << i << " rtx " << h.GetSequenceNumber() << "\n";
  } else {
    f.high = h.GetSequenceNumber() + p->GetSize();
  }
}

// Every timeout doubles the RTO (TcpSocketBase::ReTxTimeout), a repeated one in CA_LOSS
// too, which the CongState trace (it fires on a change of state) does not show; NewAck's
// recomputation stays at the 1 s minimum with this path's RTTs, so only a timeout raises it.
void OnRto(uint32_t i, Time before, Time now) {
  if (now > before) g_flows[i].timeouts++;
}

// With --trace: each flow's congestion window, congestion state and ECN state as they
// change, and each retransmission's sequence number (`rtx`), one line each (seconds, flow,
// what, value), for tracing a difference by hand.
void OnCwnd(uint32_t i, uint32_t, uint32_t now) { g_trace << Simulator::Now().GetSeconds() << " " << i << " cwnd " << now << "\n"; }
void OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
  g_trace << Simulator::Now().GetSeconds() << " " << i << " state " << TcpSocketState::TcpCongStateName[now] << "\n";
}
void OnEcnState(uint32_t i, TcpSocketState::EcnState_t, TcpSocketState::EcnState_t now) {
  g_trace << Simulator::Now().GetSeconds() << " " << i << " ecn " << TcpSocketState::EcnStateName[now] << "\n";
}

// The socket exists once the application has started.
void HookSocket(Ptr<BulkSendApplication> app, uint32_t i) {
  Ptr<Socket> s = app->GetSocket();
  s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
  s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
  if (g_trace.is_open()) {
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    s->TraceConnectWithoutContext("EcnState", MakeBoundCallback(&OnEcnState, i));
  }
}

// The bytes waiting at the port: the queue disc's, and the device queue's (the packet
// the device has taken but not yet begun to send), without their PPP headers.
void SampleBacklog(Time every, Time until) {
  uint64_t disc = g_disc->GetNBytes();
  uint64_t bytes = disc + g_device_queue->GetNBytes() - kPppBytes * g_device_queue->GetNPackets();
  g_delays_ms.emplace_back(bytes * 8.0 / kRateBps * 1e3, disc * 8.0 / kRateBps * 1e3);
  if (Simulator::Now() + every < until) Simulator::Schedule(every, &SampleBacklog, every, until);
}

// The queue disc's drops from the sampling's start on: the steady state, without the
// first slow start's overshoot.
uint64_t g_late_drops = 0;
void OnDrop(double from_s, Ptr<const QueueDiscItem>) {
  if (Simulator::Now().GetSeconds() >= from_s) g_late_drops++;
}

uint64_t g_carried_bytes = 0;
// The IP bytes the bottleneck carried (the device counts its PPP header too).
void OnPhyTxEnd(Ptr<const Packet> p) { g_carried_bytes += p->GetSize() - kPppBytes; }

// A drop reason as one token: "Target exceeded drop" -> "Target_exceeded_drop".
std::string Token(std::string s) {
  for (char& c : s) {
    if (c == ' ') c = '_';
  }
  return s;
}

// With --drops: each drop's time, flow (its data segments go to port 5000 + i), sequence
// number (from 1, as rampup's) and ns-3's reason, one line each, for reading a difference
// flow by flow.
std::ofstream g_drops;
void OnDropReason(Ptr<const QueueDiscItem> item, const char* reason) {
  TcpHeader h;
  item->GetPacket()->PeekHeader(h);
  g_drops << Simulator::Now().GetSeconds() << " " << h.GetDestinationPort() - 5000 << " " << h.GetSequenceNumber() << " " << Token(reason) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string disc = "codel";
  uint32_t flows = 1;
  double duration = 30;
  double from_s = 5;
  bool ecn = false;
  bool sack = true;
  uint32_t mss = 1000;
  uint32_t ssthresh_segments = 0;
  bool flightsize = false;
  std::string delays_file;
  std::string trace_file;
  std::string drops_file;
  CommandLine cmd;
  cmd.AddValue("disc", "red | codel | fq-codel | pie", disc);
  cmd.AddValue("flows", "bulk flows", flows);
  cmd.AddValue("duration", "seconds", duration);
  cmd.AddValue("sack", "SACK (RFC 2018) and its loss recovery (RFC 6675)", sack);
  cmd.AddValue("ecn", "ECN at the ends and the queue", ecn);
  cmd.AddValue("ssthresh", "initial ssthresh in segments (0: unlimited)", ssthresh_segments);
  cmd.AddValue("from", "queue samples from this second on", from_s);
  cmd.AddValue("delays", "write the queueing delay samples (ms) here", delays_file);
  cmd.AddValue("trace", "write each flow's cwnd, congestion and ECN states here as they change", trace_file);
  cmd.AddValue("drops", "write each drop's time, flow, sequence number and reason here", drops_file);
  cmd.AddValue("flightsize", "ssthresh on entering recovery from FlightSize, as rampup, not the pipe", flightsize);
  cmd.Parse(argc, argv);
  if (!trace_file.empty()) g_trace.open(trace_file);
  if (!drops_file.empty()) g_drops.open(drops_file);

  // rampup's NewReno (with SACK or without), an ACK for every segment, no timestamps,
  // 1000-byte payloads; RFC 6298's 1 s minimum RTO as rampup's default; an initial
  // window of 2. TcpClassicRecovery sets cwnd to ssthresh on entering recovery (RFC 5681
  // §3.2 / RFC 6675 §5), as rampup does with PRR off.
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(flightsize ? "ns3::TcpNewRenoFlightSize" : "ns3::TcpNewReno"));
  Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
  Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
  Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
  Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(ecn ? "On" : "Off"));
  if (ssthresh_segments > 0) {
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(ssthresh_segments * mss));
  }

  NodeContainer routers(2), senders(flows), receivers(flows);
  InternetStackHelper stack;
  stack.InstallAll();

  PointToPointHelper access;
  access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
  access.SetChannelAttribute("Delay", StringValue("1ms"));
  PointToPointHelper bottleneck;
  bottleneck.SetDeviceAttribute("DataRate", StringValue("20Mbps"));
  bottleneck.SetChannelAttribute("Delay", StringValue("18ms"));
  // The device queue's smallest size: with flow control it holds the one packet taken
  // from the queue disc while the one before it is on the wire.
  bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

  NetDeviceContainer bn = bottleneck.Install(routers.Get(0), routers.Get(1));
  TrafficControlHelper tch;
  const uint32_t wire = mss + 40;
  if (disc == "red") {
    tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", StringValue("1000p"), "MeanPktSize", UintegerValue(wire), "LinkBandwidth",
                         StringValue("20Mbps"), "LinkDelay", StringValue("18ms"), "UseEcn", BooleanValue(ecn));
  } else if (disc == "codel") {
    tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", StringValue("1000p"), "UseEcn", BooleanValue(ecn));
  } else if (disc == "fq-codel") {
    tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", StringValue("10240p"), "UseEcn", BooleanValue(ecn));
  } else if (disc == "pie") {
    tch.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", StringValue("1000p"), "MeanPktSize", UintegerValue(wire), "UseEcn", BooleanValue(ecn));
  } else {
    std::cerr << "dumbbell: --disc must be red, codel, fq-codel or pie\n";
    return 2;
  }
  // Installed before the addresses: Ipv4AddressHelper::Assign puts ns-3's default
  // queue disc only on devices that have none.
  QueueDiscContainer qdiscs = tch.Install(bn.Get(0));
  g_disc = qdiscs.Get(0);
  g_device_queue = DynamicCast<PointToPointNetDevice>(bn.Get(0))->GetQueue();
  g_disc->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDrop, from_s));
  if (g_drops.is_open()) {
    g_disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropReason));
    g_disc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropReason));
  }
  bn.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnPhyTxEnd));

  Ipv4AddressHelper addr;
  addr.SetBase("10.0.0.0", "255.255.255.0");
  addr.Assign(bn);
  std::vector<Ipv4Address> sinks;
  for (uint32_t i = 0; i < flows; i++) {
    addr.NewNetwork();
    addr.Assign(access.Install(senders.Get(i), routers.Get(0)));
    addr.NewNetwork();
    Ipv4InterfaceContainer r = addr.Assign(access.Install(routers.Get(1), receivers.Get(i)));
    sinks.push_back(r.GetAddress(1));
  }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  g_flows.resize(flows);
  std::vector<Ptr<PacketSink>> apps;
  for (uint32_t i = 0; i < flows; i++) {
    uint16_t port = 5000 + i;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer s = sink.Install(receivers.Get(i));
    s.Start(Seconds(0));
    apps.push_back(DynamicCast<PacketSink>(s.Get(0)));
    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(sinks[i], port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(mss));
    ApplicationContainer a = src.Install(senders.Get(i));
    // As rampup's scenario: flow i starts at 10·i ms.
    a.Start(MilliSeconds(10 * i));
    Simulator::Schedule(MilliSeconds(10 * i) + NanoSeconds(1), &HookSocket, DynamicCast<BulkSendApplication>(a.Get(0)), i);
  }
  Simulator::Schedule(Seconds(from_s), &SampleBacklog, MilliSeconds(1), Seconds(duration));
  Simulator::Stop(Seconds(duration));
  Simulator::Run();

  uint64_t rx = 0, retransmits = 0, timeouts = 0;
  for (auto& a : apps) rx += a->GetTotalRx();
  for (auto& f : g_flows) {
    retransmits += f.retransmits;
    timeouts += f.timeouts;
  }
  QueueDisc::Stats st = g_disc->GetStats();
  std::cout << "goodput_bps=" << rx * 8.0 / duration << " drops=" << st.nTotalDroppedPackets << " late_drops=" << g_late_drops << " marks=" << st.nTotalMarkedPackets
            << " retransmits=" << retransmits << " timeouts=" << timeouts << " carried_bps=" << g_carried_bytes * 8.0 / duration;
  std::cout << " flow_rx=";
  for (size_t i = 0; i < apps.size(); i++) std::cout << (i ? "," : "") << apps[i]->GetTotalRx();
  std::map<std::string, uint32_t> reasons(st.nDroppedPacketsBeforeEnqueue.begin(), st.nDroppedPacketsBeforeEnqueue.end());
  for (auto& [reason, n] : st.nDroppedPacketsAfterDequeue) reasons[reason] += n;
  for (auto& [reason, n] : reasons) std::cout << " drop:" << Token(reason) << "=" << n;
  std::cout << "\n";
  if (!delays_file.empty()) {
    std::ofstream f(delays_file);
    for (auto [port, disc] : g_delays_ms) f << port << " " << disc << "\n";
  }
  Simulator::Destroy();
  return 0;
}
