// The dumbbell of validation/compare_ns3.py in ns-3 (3.37): N NewReno bulk flows from
// s_i through "left" and a 20 Mb/s bottleneck to "right" and r_i, the bottleneck's
// data-direction queue one of ns-3's queue discs. Prints one line of key=value figures:
// goodput, the queue disc's drops and marks, and its backlog in bytes at every enqueue and
// dequeue (as queueing delays at the link's rate, ms) for the script's percentiles.
//
//   ./dumbbell --disc=codel --flows=8 --duration=30 --ecn=0 --delays=FILE
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

using namespace ns3;

static std::vector<double> g_delays_ms;
static double g_rate_bps = 20e6;
static double g_from_s = 0;
static Ptr<QueueDisc> g_disc;

static void Sample(Ptr<const QueueDiscItem>) {
  if (Simulator::Now().GetSeconds() >= g_from_s) {
    g_delays_ms.push_back(g_disc->GetNBytes() * 8.0 / g_rate_bps * 1e3);
  }
}

int main(int argc, char** argv) {
  std::string disc = "codel";
  uint32_t flows = 1;
  double duration = 30;
  bool ecn = false;
  uint32_t mss = 1000;
  std::string delays_file;
  CommandLine cmd;
  cmd.AddValue("disc", "red | codel | fq-codel | pie", disc);
  cmd.AddValue("flows", "bulk flows", flows);
  cmd.AddValue("duration", "seconds", duration);
  cmd.AddValue("ecn", "ECN at the ends and the queue", ecn);
  cmd.AddValue("from", "queue samples from this second on", g_from_s);
  cmd.AddValue("delays", "write the queueing delay samples (ms) here", delays_file);
  cmd.Parse(argc, argv);

  // rampup's NewReno without SACK, an ACK for every segment, no timestamps, 1000-byte
  // payloads; RFC 6298's 1 s minimum RTO as rampup's default; an initial window of 2.
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
  Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
  Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
  Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
  Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(ecn ? "On" : "Off"));

  NodeContainer routers(2), senders(flows), receivers(flows);
  InternetStackHelper stack;
  stack.InstallAll();

  PointToPointHelper access;
  access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
  access.SetChannelAttribute("Delay", StringValue("1ms"));
  PointToPointHelper bottleneck;
  bottleneck.SetDeviceAttribute("DataRate", StringValue("20Mbps"));
  bottleneck.SetChannelAttribute("Delay", StringValue("18ms"));
  // The device holds one packet: the backlog is the queue disc's.
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
  QueueDiscContainer qdiscs = tch.Install(bn.Get(0));
  g_disc = qdiscs.Get(0);
  g_disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&Sample));
  g_disc->TraceConnectWithoutContext("Dequeue", MakeCallback(&Sample));

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
  }
  Simulator::Stop(Seconds(duration));
  Simulator::Run();

  uint64_t rx = 0;
  for (auto& a : apps) rx += a->GetTotalRx();
  QueueDisc::Stats st = g_disc->GetStats();
  std::cout << "goodput_bps=" << rx * 8.0 / duration << " drops=" << st.nTotalDroppedPackets << " marks=" << st.nTotalMarkedPackets
            << " samples=" << g_delays_ms.size() << "\n";
  if (!delays_file.empty()) {
    std::ofstream f(delays_file);
    for (double d : g_delays_ms) f << d << "\n";
  }
  Simulator::Destroy();
  return 0;
}
